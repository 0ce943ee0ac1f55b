"""Continental Rails' tools: whole games played by the computer players
(simulate.py) and scripted strategies (strategies.py), the balance study and
the exploit suite (balance.py, exploits.py, docs/balance.md), rule case files
(cases.py, docs/cases.md) and the rules reference made from its sections
(rulesdoc.py, docs/rules.md). Nothing in the pipeline imports them."""
