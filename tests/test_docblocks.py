"""sto_odno_env/tools/docblocks.py: the generated blocks of a Markdown file, read and rewritten
(the one mechanism of docs/api.md's, docs/training.md's and the README's generators)."""

from __future__ import annotations

import pytest

from sto_odno_env.tools.docblocks import BlockError, blocks, markers, replace_block

DOC = """# Title

Written by hand, with a <!-- comment --> and a table:

| a | b |
<!-- begin generated: first -->
| old | rows |
<!-- end generated: first -->

Between the blocks, by hand.

<!-- begin generated: second-table -->
<!-- end generated: second-table -->
The end, by hand.
"""


def test_the_block_body_is_replaced_and_the_rest_is_unchanged() -> None:
    text = replace_block(DOC, "first", "| new | rows |\n| and | more |\n", "DOC.md")
    before, after = DOC.split("| old | rows |\n")
    assert text == before + "| new | rows |\n| and | more |\n" + after
    assert blocks(text) == {"first": "| new | rows |\n| and | more |\n", "second-table": ""}


def test_a_body_without_its_final_newline_keeps_the_end_comment_on_its_own_line() -> None:
    text = replace_block(DOC, "second-table", "| x |", "DOC.md")
    assert "| x |\n<!-- end generated: second-table -->\nThe end" in text
    assert replace_block(text, "second-table", "| x |\n", "DOC.md") == text


def test_two_blocks_of_different_names_are_rewritten_each_on_its_own() -> None:
    text = replace_block(DOC, "second-table", "two\n", "DOC.md")
    text = replace_block(text, "first", "one\n", "DOC.md")
    assert blocks(text) == {"first": "one\n", "second-table": "two\n"}
    assert replace_block(text, "first", "one\n", "DOC.md") == text  # rewriting is idempotent
    stripped = text.replace("one\n", "| old | rows |\n", 1).replace("two\n", "", 1)
    assert stripped == DOC


def test_a_missing_block_is_named_with_the_file() -> None:
    with pytest.raises(BlockError, match=r"^docs/x\.md has no generated block 'third'"):
        replace_block(DOC, "third", "body\n", "docs/x.md")


def test_a_block_left_open_or_held_twice_is_refused() -> None:
    begin, _ = markers("first")
    unclosed = DOC.replace("<!-- end generated: first -->", "")
    with pytest.raises(BlockError, match=f"^DOC.md has {begin} with no"):
        replace_block(unclosed, "first", "body\n", "DOC.md")
    doubled = DOC + DOC.split("| a | b |\n")[1].split("\nBetween")[0] + "\n"
    with pytest.raises(BlockError, match="holds the generated block 'first' 2 times"):
        replace_block(doubled, "first", "body\n", "DOC.md")


def test_a_name_outside_the_markers_grammar_is_refused() -> None:
    with pytest.raises(ValueError, match="not 'two words'"):
        replace_block(DOC, "two words", "body\n", "DOC.md")
