"""Review BS2: `config set` edits a store's `config.toml` through tomlkit, and a checkout ships that
file (docs/reliability.md, "Stores that arrive with a repository")."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.local_only


@pytest.mark.parametrize(
    "filler", ["\n", "# a comment the author left\n"], ids=["blank", "comment"]
)
def test_config_set_refuses_a_config_too_long_to_edit(cli, tmp_path, monkeypatch, filler) -> None:
    """Review BS2: a checkout's `.hindsight/config.toml` (adopted by `init`, or brought by a pull
    into a store the user allowed) of 1 MiB of blank lines held `hindsight config set` 55 s of CPU
    in tomlkit, whose reading of blank lines grows with their square (the 64 KiB limit review BS
    gave the client configs hindsight edits was not asked). Every edit through tomlkit asks it now
    (``safefs.reading.too_long_to_edit``): one line, exit 1, the file unchanged, tomlkit given no
    character (counted); a file within it is edited as before."""
    import tomlkit

    from hindsight_cli.safefs.reading import MAX_EDITED_TOML

    read: list[int] = []
    parse = tomlkit.parse
    monkeypatch.setattr(tomlkit, "parse", lambda text: read.append(len(text)) or parse(text))
    project = tmp_path / "checkout"
    (project / ".git").mkdir(parents=True)
    (project / ".hindsight").mkdir()
    config = project / ".hindsight" / "config.toml"
    head = "[ranking]\nw_recency = 0.2\n"
    text = head + filler * (MAX_EDITED_TOML // len(filler) + 1)
    config.write_text(text)
    monkeypatch.chdir(project)
    assert cli("init", store=False).exit_code == 0
    text = config.read_text()
    result = cli("config", "set", "ranking.w_recency", "0.3", store=False)
    assert result.exit_code == 1, result.output
    assert "more than `config set` edits" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert config.read_text() == text and read == []
    config.write_text(head + filler * 100)
    result = cli("config", "set", "ranking.w_recency", "0.3", store=False)
    assert result.exit_code == 0, result.output
    assert "w_recency = 0.3" in config.read_text() and len(read) == 1
