"""How a code skill's result is written to an output file: text as it is, a whole number in a text file as people
write it, JSON otherwise."""

from __future__ import annotations

from grove.codeskills.output import encode


def test_a_whole_float_in_a_text_file_is_written_without_its_point() -> None:
    assert encode(4355.0, "total.txt") == b"4355\n"
    assert encode(2.5, "total.txt") == b"2.5\n"
    assert encode(7, "total.txt") == b"7\n"


def test_json_files_keep_the_json_value() -> None:
    assert encode(4355.0, "total.json") == b"4355.0\n"
    assert encode([1, 2], "rows.jsonl") == b"1\n2\n"
    assert encode("text", "notes.md") == b"text"
