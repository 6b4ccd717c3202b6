"""Statistics over stored series: the pentanomial SPRT of a head-to-head match
(``pentanomial``), the Bradley-Terry maximum-likelihood rating with error bars and
likelihood of superiority (``bradley_terry``). Pure functions of their inputs, no storage."""
