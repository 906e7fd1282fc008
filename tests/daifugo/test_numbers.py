"""One reading of a written number (:mod:`daifugo.numbers`): ASCII digits only,
within a bound, counted before the number is made."""

from __future__ import annotations

import argparse
import sys

import pytest

from daifugo.numbers import option, whole

NINES = "9" * 5000  # beyond Python's 4,300 digits: int() itself raises on it


@pytest.mark.parametrize(
    "text",
    ["", "²", "3²", "٣", "３", " 3", "3 ", "+3", "-3", "3_0", "3.0", "0x3", NINES, "1" + "0" * 5],
)
def test_only_ascii_digits_within_the_bound_are_a_number(text):
    assert str.isdigit("²") and int("٣") == 3  # what the parser is here for
    assert whole(text, 99_999) is None


def test_leading_zeros_are_read_and_the_bound_holds_at_both_ends():
    assert whole("00042", 99_999) == 42
    assert whole("0" * 5000 + "7", 9) == 7  # zeros do not count toward the bound
    assert whole("0", 5) == 0 and whole("5", 5) == 5 and whole("6", 5) is None
    assert whole("0", 5, 1) is None and whole("1", 5, 1) == 1


def test_digits_caps_the_written_length_as_tndhms_s_isint():
    assert whole("00003", 99_999, digits=5) == 3
    assert whole("000003", 99_999, digits=5) is None


def test_a_huge_number_is_refused_before_int_sees_it():
    assert len(NINES) > sys.get_int_max_str_digits()
    assert whole(NINES, 2**64) is None


def test_an_option_of_it_refuses_in_argparse_s_words():
    parser = argparse.ArgumentParser(exit_on_error=False)
    parser.add_argument("--port", type=option(65_535))
    assert parser.parse_args(["--port", "8000"]).port == 8000
    for bad in ("²", "٣", NINES, "65536"):
        with pytest.raises(argparse.ArgumentError, match="a whole number 0-65535, not"):
            parser.parse_args(["--port", bad])
