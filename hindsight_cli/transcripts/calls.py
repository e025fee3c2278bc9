"""What a tool call was about and whether it failed, as the recording hooks and the transcript
readers both read it. Standard library and the redaction rules only: a recording hook loads it.
"""

from __future__ import annotations

from ..redact import redact, redact_value
from ..storage import spool_json as codec

_MAX_ARGS = 300
_EXIT_CODE = r"(?im)^\s*(?:exit code|exit status|process exited with code)\s*:?\s*(-?\d+)"


def clip(text: str, limit: int) -> str:
    text = text.strip()
    if len(text) <= limit:
        return text
    # an error's last lines usually say the most; keep both ends
    head = limit // 4
    return text[:head].rstrip() + " … " + text[-(limit - head - 3) :].lstrip()


def as_text(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return codec.dumps(value, sort_keys=True)


_COMMAND_KEYS = ("command", "cmd")


def command_text(tool_input: object) -> str:
    """A shell call's command as it ran (new lines and heredocs kept, for its family), redacted; ""
    when the call has none."""
    if isinstance(tool_input, dict):
        for key in _COMMAND_KEYS:
            value = tool_input.get(key)
            if isinstance(value, list):
                value = " ".join(str(v) for v in value)
            if isinstance(value, str) and value.strip():
                return redact(value)[0]
    return ""


def args_summary(tool_input: object) -> tuple[str, int]:
    """What the call was about, redacted: the command, the file, or the arguments as compact JSON;
    and how many secrets went. Only what is kept is redacted (a Write's whole file content is not),
    and it is redacted whole before it is clipped, so a clip never cuts a secret in two and hides
    it."""
    if isinstance(tool_input, dict):
        for key in ("command", "cmd", "file_path", "path", "url", "query", "pattern"):
            value = tool_input.get(key)
            if isinstance(value, list):
                value = " ".join(str(v) for v in value)
            if isinstance(value, str) and value.strip():
                text, count = redact(value)
                return clip(" ".join(text.split()), _MAX_ARGS), count
    redacted, count = redact_value(tool_input)
    return clip(as_text(redacted), _MAX_ARGS), count


def response_error(response: object) -> str:
    """The error a successful-looking tool event reports (Codex and Gemini have no failure
    event)."""
    if isinstance(response, dict):
        if response.get("is_error") or response.get("isError") or response.get("success") is False:
            return as_text(
                response.get("error")
                or response.get("stderr")
                or response.get("output")
                or response
            )
        if response.get("error"):
            return as_text(response["error"])
        for key in ("exit_code", "exitCode", "returncode", "exit_status"):
            code = response.get(key)
            if isinstance(code, int) and not isinstance(code, bool) and code != 0:
                return f"Exit code {code}\n" + as_text(
                    response.get("stderr") or response.get("output") or response.get("stdout") or ""
                )
        return ""
    if isinstance(response, str):
        import re

        match = re.search(_EXIT_CODE, response[:400])
        if match and int(match.group(1)) != 0:
            return response
    return ""
