"""`munda-arbitrator try`: a person types commands and clicks by number, offline."""

from __future__ import annotations

import subprocess
import sys

TYPED = """\
/campaign create name:Dust Falls
/gang create name:The Slag Lords house:Goliath alignment:Outlaw credits:300
as bob
/gang show gang:Slag Lord
as carol
nonsense
as alice
/campaign delete campaign:Dust Falls
1
quit
"""


def test_a_person_types_commands_as_someone_and_clicks_buttons_by_number() -> None:
    done = subprocess.run([sys.executable, "-m", "bot", "try"], input=TYPED,
                          capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr[-3000:]
    text = done.stdout
    assert "> Alice used /gang create name:The Slag Lords" in text
    assert "**The Slag Lords** (Goliath, Outlaw) joins Dust Falls with 300 credits" in text
    # Typed as bob: his refusal is his alone, and names the gang he likely meant.
    assert ("[ephemeral, only Bob sees this]: There is no gang called 'Slag Lord' in this "
            "campaign. Did you mean 'The Slag Lords'?") in text
    assert "Not understood: 'nonsense'" in text
    # The button listed as 1 is the deletion's Confirm; pressing it deletes.
    assert "  1. [Confirm] on 'Delete **Dust Falls**" in text
    assert "> Alice clicked [Confirm]" in text
    assert "@Alice deleted the campaign **Dust Falls**." in text
