"""The arena's read-only website: seasons, live standings, series replays and bot
pages as HTML (Jinja2 templates, small vanilla JS files, no build step) and the same
data as JSON under ``/api/``; live updates over Server-Sent Events fed by the
season event hub. ``arena.server`` starts it beside the gRPC service
(``serve.WebServer``: uvicorn in a thread of the arena's process)."""

