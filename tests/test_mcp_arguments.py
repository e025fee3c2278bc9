"""What a model reads when it calls a tool or the prompt wrongly (issue 34, MCP): one sentence that
names the argument, says what was wrong and what to send, in the tool's own argument names; through
the SDK's real client."""

from __future__ import annotations

import pytest
from mcp import Client, MCPError

from hindsight_cli.mcp_server import build_server
from hindsight_cli.store import Store

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


# (tool, arguments, the sentence the model reads)
BAD_CALLS = [
    (
        "memory_search",
        {"query": "x", "top_k": 0},
        "Invalid arguments for memory_search: top_k must be at least 1, not 0.",
    ),
    (
        "memory_search",
        {},
        "Invalid arguments for memory_search: query is missing: it is required (a string).",
    ),
    (
        "memory_search",
        {"query": "x", "types": "semantic"},
        'Invalid arguments for memory_search: types must be a list, e.g. ["semantic"], not a '
        "string.",
    ),
    (
        "memory_search",
        {"query": "x", "tags": "a,b"},
        'Invalid arguments for memory_search: tags must be a list, e.g. ["a", "b"], not a string.',
    ),
    # review BT: a string of many tags is not told back whole (50,000 made a 589 KB sentence)
    (
        "memory_search",
        {"query": "x", "tags": ",".join(f"t{i}" for i in range(50_000))},
        'Invalid arguments for memory_search: tags must be a list, e.g. ["t0", "t1", "t2", "…"],'
        " not a string.",
    ),
    (
        "memory_write",
        {"content": "x", "metadata": [1, 2]},
        'Invalid arguments for memory_write: metadata must be a JSON object, e.g. {"key": '
        '"value"}, not a list.',
    ),
    (
        "memory_get",
        {"id": 12345678},
        'Invalid arguments for memory_get: id must be a string, e.g. "12345678", not a number.',
    ),
    # beyond the quoted ones: every tool, wrong types, ranges, enums, nested lists and objects
    (
        "memory_search",
        {"query": "x", "top_k": "many"},
        'Invalid arguments for memory_search: top_k must be a whole number, not "many".',
    ),
    (
        "memory_search",
        {"query": "x", "min_score": 2},
        "Invalid arguments for memory_search: min_score must be at most 1, not 2.",
    ),
    (
        "memory_search",
        {"query": "x", "mode": "fuzzy"},
        "Invalid arguments for memory_search: mode must be one of 'hybrid', 'vector' or "
        "'keyword', not \"fuzzy\".",
    ),
    (
        "memory_search",
        {"query": "x", "types": ["semantic", "lesson"]},
        "Invalid arguments for memory_search: types[1] must be one of 'working', 'episodic', "
        "'semantic' or 'procedural', not \"lesson\".",
    ),
    (
        "memory_write",
        {"content": "x", "tags": [1, ["b"]]},
        'Invalid arguments for memory_write: tags[0] must be a string, e.g. "1", not a number; '
        "tags[1] must be a string, not a list.",
    ),
    (
        "memory_write",
        {"content": "x", "env": {"tool_version": 3}},
        'Invalid arguments for memory_write: env["tool_version"] must be a string, e.g. "3", not '
        "a number.",
    ),
    (
        "memory_write",
        {"content": "x", "step": -1},
        "Invalid arguments for memory_write: step must be at least 0, not -1.",
    ),
    (
        "memory_write",
        {"content": "x", "merge": "sometimes"},
        'Invalid arguments for memory_write: merge must be true or false, not "sometimes".',
    ),
    (
        "memory_summarize",
        {"task_id": "t", "budget_tokens": 0},
        "Invalid arguments for memory_summarize: budget_tokens must be at least 1, not 0.",
    ),
    (
        "memory_consolidate",
        {"dry_run": "perhaps"},
        'Invalid arguments for memory_consolidate: dry_run must be true or false, not "perhaps".',
    ),
    (
        "memory_forget",
        {"ids": "0123abcd"},
        'Invalid arguments for memory_forget: ids must be a list, e.g. ["0123abcd"], not a string.',
    ),
    (
        "memory_get",
        {"id": "0123abcd", "budget_tokens": 1.5},
        "Invalid arguments for memory_get: budget_tokens must be a whole number, not 1.5.",
    ),
    # an argument the tool does not take is named, never ignored
    (
        "memory_search",
        {"query": "x", "tag": ["a"]},
        'Invalid arguments for memory_search: it has no argument "tag" (did you mean "tags"?); '
        "it takes query, top_k, budget_tokens, agent_id, task_id, types, outcomes, tags, "
        "sources, since, until, mode, env, current_task, troubleshoot, include_archived, "
        "min_score, fields, verbose.",
    ),
    (
        "memory_consolidate",
        {"dryrun": True, "why": "x"},
        'Invalid arguments for memory_consolidate: it has no arguments "dryrun" (did you mean '
        '"dry_run"?), "why"; it takes dry_run, budget_tokens.',
    ),
    (
        "memory_summarize",
        {"task_id": "t", "sampled": {}},
        'Invalid arguments for memory_summarize: it has no argument "sampled"; it takes '
        "task_id, since, until, budget_tokens.",
    ),
]


@pytest.mark.parametrize(("tool", "arguments", "said"), BAD_CALLS)
async def test_a_bad_argument_is_one_sentence_naming_it(
    store: Store, tool: str, arguments: dict, said: str
) -> None:
    async with Client(build_server(store)) as client:
        answer = await client.call_tool(tool, arguments)
    assert answer.is_error
    assert [c.text for c in answer.content] == [said]
    assert "pydantic" not in said and "http" not in said
    assert store.list() == []


async def test_the_core_s_messages_name_the_tool_s_arguments_not_the_cli_s(store: Store) -> None:
    """Messages the CLI shares say --task, --no-merge, `-` for stdin; a model reads task_id,
    merge=false and no stdin."""
    async with Client(build_server(store)) as client:
        nothing = await client.call_tool("memory_summarize", {})
        empty = await client.call_tool("memory_write", {"content": "  "})
        both = await client.call_tool(
            "memory_forget", {"task_id": "t", "hard": True, "archive": True}
        )
        await client.call_tool("memory_write", {"content": "deploy failed", "task_id": "t"})
        twice = await client.call_tool(
            "memory_write",
            {"content": "deploy failed", "task_id": "t", "merge": False, "resolution": "retry"},
        )
    assert nothing.content[0].text == (
        "Error executing tool memory_summarize: Say what to summarize: a task (task_id) or a time "
        "range (since/until)."
    )
    assert empty.content[0].text == (
        "Error executing tool memory_write: content is empty: give the memory some text."
    )
    assert both.content[0].text == (
        "Error executing tool memory_forget: Choose one: hard=true deletes for good, archive=true "
        "keeps memories in cold storage."
    )
    assert twice.is_error and "merge=false cannot store it twice" in twice.content[0].text
    assert "another step or key" in twice.content[0].text
    for answer in (nothing, empty, both, twice):
        assert answer.is_error and "--" not in answer.content[0].text
        assert "stdin" not in answer.content[0].text


async def test_an_unknown_id_points_to_the_search_tool(store: Store) -> None:
    async with Client(build_server(store)) as client:
        answer = await client.call_tool("memory_get", {"id": "0123abcd"})
    assert answer.is_error and answer.content[0].text == (
        "Error executing tool memory_get: No memory with id '0123abcd'. Find ids with "
        "memory_search."
    )


async def test_an_unknown_memory_resource_is_not_found(store: Store) -> None:
    async with Client(build_server(store)) as client:
        with pytest.raises(MCPError) as raised:
            await client.read_resource("hindsight://memory/0123abcd")
    assert raised.value.error.code == -32602
    assert raised.value.error.message == (
        "No memory with id '0123abcd'. Find ids with memory_search."
    )


async def test_an_unknown_tool_names_the_ones_offered(store: Store) -> None:
    async with Client(build_server(store, tools=["search", "get"])) as client:
        answer = await client.call_tool("memory_forget", {"ids": ["x"]})
    assert answer.is_error and answer.content[0].text == (
        "Unknown tool: memory_forget; this server offers memory_search, memory_get."
    )


@pytest.mark.parametrize(
    ("arguments", "said"),
    [
        (
            {"task": "deploy", "budget_tokens": "abc"},
            'Invalid arguments for the prompt recall: budget_tokens must be a whole number, not "abc".',
        ),
        (
            {"task": "deploy", "budget_tokens": "0"},
            'Invalid arguments for the prompt recall: budget_tokens must be at least 1, not "0".',
        ),
        (
            {},
            "Invalid arguments for the prompt recall: task is missing: it is required (a string).",
        ),
        (
            {"task": "deploy", "budget": "10"},
            'Invalid arguments for the prompt recall: it has no argument "budget" (did you mean '
            '"budget_tokens"?); it takes task, budget_tokens, task_id.',
        ),
    ],
)
async def test_a_bad_prompt_argument_is_a_clear_error(
    store: Store, arguments: dict, said: str, caplog: pytest.LogCaptureFixture
) -> None:
    async with Client(build_server(store)) as client:
        with pytest.raises(MCPError) as raised:
            await client.get_prompt("recall", arguments)
    assert raised.value.error.message == said
    assert "Traceback" not in caplog.text and "Error rendering prompt" not in caplog.text


async def test_a_prompt_refused_by_the_store_says_why(tmp_path, fake) -> None:  # type: ignore[no-untyped-def]
    missing = Store(tmp_path / "nowhere", embedder=fake)
    async with Client(build_server(missing)) as client:
        with pytest.raises(MCPError) as raised:
            await client.get_prompt("recall", {"task": "deploy"})
    assert raised.value.error.message.startswith("No hindsight store at ")


class _Compared(str):
    """A sentence that counts how often it is compared with another (``explain`` keeps each once)."""

    compared = 0

    def __radd__(self, other: str) -> _Compared:
        return _Compared(other + str(self))

    def __eq__(self, other: object) -> bool:
        _Compared.compared += 1
        return str.__eq__(self, other)  # type: ignore[no-any-return]

    __hash__ = str.__hash__


async def test_a_list_argument_of_many_bad_items_is_told_in_linear_work(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Review BT: each bad item of a list argument is one error, and ``explain`` kept its sentences
    unique by a list's ``in``, comparing each with all before it: a ``memory_write`` whose tags
    held 20,000 numbers took 3.8 s in the server's event loop (a shared server's every principal
    waiting), 200,000 (a 1 MB request) minutes. Kept in a dict now: the comparisons grow with the
    items, and the sentence names the first three and counts the rest."""
    from hindsight_cli.mcp_server import arguments

    problem = arguments._problem
    _Compared.compared = 0
    monkeypatch.setattr(arguments, "_problem", lambda *a: _Compared(problem(*a)))
    errors = [
        {"type": "string_type", "loc": ("tags", i), "input": i, "msg": "Input should be a string"}
        for i in range(3000)
    ]
    said = arguments.explain("memory_write", errors + errors[:5])
    assert _Compared.compared <= 3 * 3005, _Compared.compared
    assert said.startswith("Invalid arguments for memory_write: tags[0] must be a string")
    assert said.endswith("(and 2997 more).")
    monkeypatch.undo()
    # through the SDK's real client: one sentence, nothing written
    async with Client(build_server(store)) as client:
        answer = await client.call_tool("memory_write", {"content": "x", "tags": list(range(2000))})
    assert answer.is_error
    [text] = [c.text for c in answer.content]
    assert text.startswith("Invalid arguments for memory_write: tags[0] must be a string")
    assert text.endswith("(and 1997 more).")
    assert store.list() == []
