"""The converter of the shipped game content: community references into rule data.

Run by hand with the folder of the sources (docs/rule-data.md, "The shipped
Necromunda content")::

    python -m tools.content ../shared/content rules/data/necromunda-2023

It reads the necrovox Markdown (2023 rules, MIT) and the Gyrinx YAML seed
(Apache-2.0), and writes a rule data set: House Lists, the Armoury, skill
sets, Hangers-on and Brutes, a manifest naming the sources, the licence
notices and a cross-check report. Only figures and names are taken, never a
sentence. The output depends on the sources alone: rerunning it on the same
folder writes the same bytes.
"""
