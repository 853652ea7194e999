""""Did you mean" suggestions for unknown names, shared by every front end."""

from __future__ import annotations

from collections.abc import Iterable


def close_matches(name: str, known: Iterable[str], limit: int = 3) -> list[str]:
    """The known names closest to `name`, best first (case-insensitive, at most `limit`)."""
    import difflib  # only when a name is unknown: difflib stays out of every start-up

    by_folded: dict[str, str] = {}
    for candidate in known:
        by_folded.setdefault(candidate.casefold(), candidate)
    folded = difflib.get_close_matches(name.casefold(), list(by_folded), n=limit, cutoff=0.6)
    return [by_folded[f] for f in folded if by_folded[f] != name]


def did_you_mean(name: str, known: Iterable[str]) -> str | None:
    """`did you mean 'x'?` (or `'x' or 'y'`) for the closest known names, or None."""
    matches = close_matches(name, known, limit=2)
    if not matches:
        return None
    return "did you mean " + " or ".join(f"'{m}'" for m in matches) + "?"


def with_suggestion(message: str, name: str, known: Iterable[str]) -> str:
    """`message`, followed by `; did you mean …?` when a known name is close to `name`."""
    hint = did_you_mean(name, known)
    return message if hint is None else f"{message}; {hint}"
