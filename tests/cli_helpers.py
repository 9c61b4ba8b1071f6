"""What the command-line tests share: a command refused as every bad input is (exit status 2, a
message naming the culprit, no traceback)."""

from collections.abc import Callable

import pytest


def refused(capsys, call: Callable[[], object], *words: str) -> str:
    """Run a command's ``main`` that must end with exit status 2 and a message holding ``words``;
    its stderr, on one line."""
    capsys.readouterr()
    with pytest.raises(SystemExit) as info:
        call()
    err = " ".join(capsys.readouterr().err.split())
    assert info.value.code == 2, err
    assert "Traceback" not in err
    for word in words:
        assert word in err, (word, err)
    return err
