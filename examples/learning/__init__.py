"""The learning environment's worked example (docs/learning.md): a small policy network
trained by imitation of the ``greedy`` sample bot's decisions over the environment's 341
features and 107 actions, with numpy alone, then played as an SDK bot
(``examples/learning/learned_bot``)."""
