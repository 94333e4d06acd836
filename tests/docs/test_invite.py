"""The invite link of docs/arbitrator.md asks Discord for exactly the permissions the README
and the guide list, no more and no fewer."""

from __future__ import annotations

import re
from pathlib import Path

import discord

DOCS = Path(__file__).parents[2] / "docs"
# Discord's names in the URL Generator, as the pages write them, and discord.py's flags
# (it calls View Channels read_messages).
FLAG_OF = {
    "View Channels": "read_messages", "Send Messages": "send_messages",
    "Send Messages in Threads": "send_messages_in_threads",
    "Create Public Threads": "create_public_threads", "Embed Links": "embed_links",
    "Attach Files": "attach_files", "Read Message History": "read_message_history",
    "Create Events": "create_events",
}


def granted(value: int) -> set[str]:
    return {name for name, on in discord.Permissions(value) if on}


def test_the_invite_link_asks_for_the_permissions_the_pages_list() -> None:
    guide = (DOCS / "arbitrator.md").read_text("utf-8")
    [link] = re.findall(r"https://discord\.com/oauth2/authorize\?\S+", guide)
    assert "scope=bot+applications.commands" in link
    value = int(re.findall(r"permissions=(\d+)", link)[0])
    assert f"`{value}` is exactly the permissions the bot uses" in guide
    listed = re.search(r"the bot uses: (.+?)\. It needs", guide, re.S)
    assert listed is not None
    names = [n.strip() for n in re.split(r",|\band\b", " ".join(listed.group(1).split()))]
    assert granted(value) == {FLAG_OF[n] for n in names if n}
    readme = (DOCS.parent / "README.md").read_text("utf-8")
    step = readme[readme.index("2. Invite it"):readme.index("3. Configure")]
    assert granted(value) == {FLAG_OF[" ".join(n.split())]
                              for n in re.findall(r"\*\*([^*]+)\*\*", step)
                              if " ".join(n.split()) in FLAG_OF}
