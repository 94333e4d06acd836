"""Discord's documented limits, each sent just over (400, 50035, the field named) and at (accepted).

Sent over HTTP as a bot would send them; interaction callbacks answer
interactions made in the fake (a modal for a slash command, choices for an
autocomplete), as Discord made them.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

import aiohttp
import pytest

from bot.outbox import OutgoingFile, multipart_body
from fakediscord import FakeDiscord
from fakediscord.common import InteractionType
from fakediscord.errors import error_paths

AUTH = {"Authorization": "Bot fake-token"}
V2 = 1 << 15


@dataclass
class Fake:
    fake: FakeDiscord
    http: aiohttp.ClientSession

    def url(self, path: str) -> str:
        return f"{self.fake.base_url}{path}"

    @property
    def messages(self) -> str:
        return self.url(f"/channels/{self.fake.channel('general', 'Underhive').id}/messages")

    @property
    def commands(self) -> str:
        return self.url(f"/applications/{self.fake.world.application_id}/commands")

    def callback(self, kind: InteractionType) -> str:
        """The callback URL of a new interaction of ``kind`` by alice in #general."""
        record = self.fake.interactions.create(
            kind, self.fake.user("alice"), self.fake.channel("general", "Underhive"),
            {"name": "limits", "type": 1}, label="limits", command_name="limits",
        )
        return self.url(f"/interactions/{record.id}/{record.token}/callback")


@pytest.fixture
async def api() -> AsyncIterator[Fake]:
    fake = FakeDiscord.demo(token="fake-token")
    await fake.start()
    async with aiohttp.ClientSession(headers=AUTH) as session:
        yield Fake(fake, session)
    await fake.stop()


async def refused(api: Fake, method: str, url: str, body: Any, path: str) -> None:
    async with api.http.request(method, url, json=body) as resp:
        answer = await resp.json()
        assert resp.status == 400, answer
    assert answer["code"] == 50035, answer
    assert error_paths(answer["errors"]) == [path], answer


async def accepted(api: Fake, method: str, url: str, body: Any) -> Any:
    async with api.http.request(method, url, json=body) as resp:
        answer = await resp.json() if resp.status != 204 else None
        assert resp.status in (200, 201, 204), answer
    return answer


async def over_and_at(
    api: Fake, method: str, url: str | Callable[[], str], build: Callable[[int], Any],
    limit: int, path: str,
) -> None:
    """``build(limit + 1)`` is refused naming ``path``; ``build(limit)`` is accepted."""
    where = url if isinstance(url, str) else None
    await refused(api, method, where or url(), build(limit + 1), path)  # type: ignore[operator]
    await accepted(api, method, where or url(), build(limit))  # type: ignore[operator]


# --------------------------------------------------------------------------- messages


def select(**fields: Any) -> dict[str, Any]:
    options = fields.pop("options", [{"label": "A", "value": "a"}, {"label": "B", "value": "b"}])
    return {"components": [{"type": 1, "components": [
        {"type": 3, "custom_id": "pick", "options": options, **fields}]}]}


SELECT = "components.0.components.0"


async def test_embed_footer_and_author_name_on_their_own(api: Fake) -> None:
    await over_and_at(api, "POST", api.messages,
                      lambda n: {"embeds": [{"footer": {"text": "f" * n}}]},
                      2048, "embeds.0.footer.text")
    await over_and_at(api, "POST", api.messages,
                      lambda n: {"embeds": [{"description": "d", "author": {"name": "a" * n}}]},
                      256, "embeds.0.author.name")


async def test_select_placeholder(api: Fake) -> None:
    await over_and_at(api, "POST", api.messages, lambda n: select(placeholder="p" * n),
                      150, f"{SELECT}.placeholder")


async def test_select_option_description(api: Fake) -> None:
    await over_and_at(api, "POST", api.messages,
                      lambda n: select(options=[{"label": "A", "value": "a",
                                                 "description": "d" * n}]),
                      100, f"{SELECT}.options.0.description")


async def test_max_values_above_the_number_of_options(api: Fake) -> None:
    await over_and_at(api, "POST", api.messages, lambda n: select(min_values=0, max_values=n),
                      2, f"{SELECT}.max_values")


async def test_forty_components_in_a_components_v2_message_nested_ones_included(
    api: Fake,
) -> None:
    def message(total: int) -> dict[str, Any]:
        texts = [{"type": 10, "content": f"line {i}"} for i in range(total - 1)]
        return {"flags": V2, "components": [{"type": 17, "components": texts}]}

    await over_and_at(api, "POST", api.messages, message, 40, "components")


# --------------------------------------------------------------------------- threads


async def test_thread_auto_archive_duration_is_one_of_discords_four(api: Fake) -> None:
    channel = api.fake.channel("general", "Underhive")
    threads = api.url(f"/channels/{channel.id}/threads")
    for minutes in (0, 59, 61, 1441, 10081):
        await refused(api, "POST", threads,
                      {"name": "t", "type": 11, "auto_archive_duration": minutes},
                      "auto_archive_duration")
    made = []
    for minutes in (60, 1440, 4320, 10080):
        made.append(await accepted(api, "POST", threads,
                                   {"name": "t", "type": 11, "auto_archive_duration": minutes}))
    posted = await accepted(api, "POST", api.messages, {"content": "start here"})
    from_message = api.url(f"/channels/{channel.id}/messages/{posted['id']}/threads")
    await refused(api, "POST", from_message, {"name": "t", "auto_archive_duration": 30},
                  "auto_archive_duration")
    await accepted(api, "POST", from_message, {"name": "t", "auto_archive_duration": 4320})
    thread = api.url(f"/channels/{made[0]['id']}")
    await refused(api, "PATCH", thread, {"auto_archive_duration": 120}, "auto_archive_duration")
    edited = await accepted(api, "PATCH", thread, {"auto_archive_duration": 10080})
    assert edited["thread_metadata"]["auto_archive_duration"] == 10080


# --------------------------------------------------------------------------- modals


def modal(**text_input: Any) -> dict[str, Any]:
    field = {"type": 4, "custom_id": "name", "label": "Name", "style": 1, **text_input}
    return {"type": 9, "data": {"custom_id": "m", "title": "Limits",
                                "components": [{"type": 1, "components": [field]}]}}


TEXT_INPUT = "data.components.0.components.0"


async def test_modal_text_input_value_and_placeholder(api: Fake) -> None:
    def url() -> str:
        return api.callback(InteractionType.APPLICATION_COMMAND)

    await over_and_at(api, "POST", url, lambda n: modal(value="v" * n), 4000,
                      f"{TEXT_INPUT}.value")
    await over_and_at(api, "POST", url, lambda n: modal(placeholder="p" * n), 100,
                      f"{TEXT_INPUT}.placeholder")


async def test_modal_text_input_length_ranges(api: Fake) -> None:
    def url() -> str:
        return api.callback(InteractionType.APPLICATION_COMMAND)

    await over_and_at(api, "POST", url, lambda n: modal(min_length=n, max_length=4000), 4000,
                      f"{TEXT_INPUT}.min_length")
    await over_and_at(api, "POST", url, lambda n: modal(max_length=n), 4000,
                      f"{TEXT_INPUT}.max_length")
    await refused(api, "POST", url(), modal(max_length=0), f"{TEXT_INPUT}.max_length")
    await refused(api, "POST", url(), modal(min_length=-1), f"{TEXT_INPUT}.min_length")
    # min_length above max_length: the range is empty.
    await refused(api, "POST", url(), modal(min_length=11, max_length=10),
                  f"{TEXT_INPUT}.max_length")
    await accepted(api, "POST", url(), modal(min_length=10, max_length=10))


# --------------------------------------------------------------------------- choices


async def test_autocomplete_choice_value(api: Fake) -> None:
    def url() -> str:
        return api.callback(InteractionType.AUTOCOMPLETE)

    await over_and_at(api, "POST", url,
                      lambda n: {"type": 8, "data": {"choices": [{"name": "n", "value": "v" * n}]}},
                      100, "data.choices.0.value")


def command(**option: Any) -> list[dict[str, Any]]:
    return [{"name": "pick", "description": "Pick one", "type": 1, "options": [
        {"name": "what", "description": "what", "type": 3, **option}]}]


CHOICE = "0.options.0.choices.0"


async def test_command_choice_name_and_value(api: Fake) -> None:
    await over_and_at(api, "PUT", api.commands,
                      lambda n: command(choices=[{"name": "n" * n, "value": "v"}]),
                      100, f"{CHOICE}.name")
    await over_and_at(api, "PUT", api.commands,
                      lambda n: command(choices=[{"name": "n", "value": "v" * n}]),
                      100, f"{CHOICE}.value")


def command_of(chars: int) -> list[dict[str, Any]]:
    """One command whose names, descriptions and choice values total ``chars`` characters."""
    cmd: dict[str, Any] = {"name": "big", "description": "d" * 100, "type": 1, "options": []}
    left = chars - 103
    for i in range(25):
        choices: list[dict[str, Any]] = []
        cmd["options"].append({"name": f"o{i:02}", "description": "x" * 97, "type": 3,
                               "choices": choices})
        left -= 100
        while left >= 3 and len(choices) < 25:
            value = "v" * min(left - 3, 100)
            choices.append({"name": f"c{len(choices):02}", "value": value})
            left -= 3 + len(value)
        if left <= 0:
            break
    assert left == 0
    return [cmd]


def chars_of(node: dict[str, Any]) -> int:
    own = sum(len(str(node.get(k) or "")) for k in ("name", "description", "value"))
    return own + sum(chars_of(c) for c in [*node.get("options", []), *node.get("choices", [])])


async def test_eight_thousand_characters_per_command(api: Fake) -> None:
    assert chars_of(command_of(8000)[0]) == 8000
    await over_and_at(api, "PUT", api.commands, command_of, 8000, "0")


def with_files(count: int, size: int = 8) -> aiohttp.FormData:
    """A message with ``count`` files of ``size`` bytes, sent as multipart like a bot does."""
    files = [OutgoingFile(f"page-{n}.png", bytes(size)) for n in range(count)]
    return multipart_body({"content": "pages"}, files)


async def test_ten_files_to_a_message_and_ten_megabytes_to_a_request(api: Fake) -> None:
    async with api.http.post(api.messages, data=with_files(11)) as resp:
        answer = await resp.json()
        assert resp.status == 400, answer
    assert answer["code"] == 50035 and error_paths(answer["errors"]) == ["attachments"]
    async with api.http.post(api.messages, data=with_files(10)) as resp:
        made = await resp.json()
        assert resp.status == 200, made
    assert [a["filename"] for a in made["attachments"]] == [f"page-{n}.png" for n in range(10)]
    assert {a["size"] for a in made["attachments"]} == {8}

    megabytes = 1024 * 1024
    async with api.http.post(api.messages, data=with_files(2, 5 * megabytes + 1)) as resp:
        answer = await resp.json()
        assert (resp.status, answer["code"]) == (413, 40005), answer
    async with api.http.post(api.messages, data=with_files(2, 5 * megabytes)) as resp:
        assert resp.status == 200
