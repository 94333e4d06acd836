"""A campaign's own crew injury table, as a rule data file (TOML) gives it: for the tests of
rule data set directories and of a campaign's rule data file."""

CRAWL_CREW = """
[crew_injuries]
name = "Campaign crew table"
dice = "D66"

[[crew_injuries.entries]]
low = 11
high = 56
name = "Out Cold"
effects = [{ kind = "none" }]

[[crew_injuries.entries]]
low = 61
high = 66
name = "Memorable Death"
effects = [{ kind = "dead" }]
"""
