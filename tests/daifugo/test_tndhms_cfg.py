"""tndhms's cfg file read as tndhms reads it (``daihu.c:211-640``): comments, case, keys
it passes over, a key given twice, its defaults, and the lines it cannot read."""

from __future__ import annotations

import pytest

from daifugo.rules import UECDA
from daifugo.tndhms_cfg import CfgError, read_cfg

#: A cfg in the shape of tndhms's own (tabs, lower-case values, keys a match here never reads).
CFG = """\
# tndhms config
WINDOW_TYPE\tnew_normal
GRAPH_WINDOW\tnone
RULE_KAKUMEI\tyes
RULE_SHIBARI\tyes   # the lock
RULE_KINSOKU\tno
RULE_KAIDAN\tyes
RULE_5TOBI\tno
RULE_6REVERS\tno
RULE_8GIRI\tyes
RULE_11BACK\tyes
RULE_CHANGE\tyes
RULE_SEKIGAE\tyes
RULE_SEKIGAE_NUM\t5
FLAG_LOGGER yes
GAME_NUMBER\t30
FLASH_MIBUN_NUMBER\t100
PORT_NUMBER\t42485
RAND_TYPE\tMT
PLAYER1_NAME\tplayer0
"""


def test_a_cfg_in_tndhms_s_shape_gives_its_rules_games_and_port():
    cfg = read_cfg(CFG)
    assert cfg.rules == UECDA.but(eleven_back=True)
    assert cfg.rules.label == "uecda+11back"
    assert (cfg.games, cfg.port) == (30, 42485)


def test_keys_left_out_take_tndhms_s_own_defaults():
    cfg = read_cfg("RULE_11BACK yes\n")
    # tndhms's code: 3 for RULE_SEKIGAE_NUM, 100 games, 100 for FLASH_MIBUN_NUMBER
    assert cfg.rules == UECDA.but(eleven_back=True, seat_shuffle_period=3)
    assert (cfg.games, cfg.port) == (100, 42485)


def test_comments_case_and_unknown_keys_are_as_tndhms_has_them():
    text = "#RULE_11BACK yes\n  rule_6revers YeS # 6 reverses\nNEW_RULE maybe\nRULE_11BACK\tno#x\n"
    cfg = read_cfg(text)
    assert cfg.rules == UECDA.but(six_reverse=True, seat_shuffle_period=3)


def test_a_key_given_twice_takes_its_last_value():
    assert read_cfg("RULE_11BACK yes\nRULE_11BACK no\n").rules.eleven_back is False


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "RULE_11BACK yes\nRULE_6REVERS perhaps\n",
            "^line 2: RULE_6REVERS is YES or NO, not 'PERHAPS'",
        ),
        ("GAME_NUMBER 123456\n", "^line 1: GAME_NUMBER is a number of at most 5 digits"),
        ("\nPORT_NUMBER -1\n", "^line 2: PORT_NUMBER is a number"),
        ("GAME_NUMBER ²\n", "^line 1: GAME_NUMBER is a number of at most 5 digits, not '²'"),
        ("RULE_SEKIGAE_NUM ²\n", "^line 1: RULE_SEKIGAE_NUM is a number of at most 5 digits"),
        ("FLASH_MIBUN_NUMBER ٣\n", "^line 1: FLASH_MIBUN_NUMBER is a number of at most 5"),
        ("RULE_KAKUMEI\n", "^line 1: RULE_KAKUMEI has no value"),
        ("FLASH_MIBUN_NUMBER 0\n", "^line 1: FLASH_MIBUN_NUMBER 0: tndhms divides by it"),
        ("RULE_SEKIGAE_NUM 0\n", "^line 1: RULE_SEKIGAE_NUM 0 with RULE_SEKIGAE YES"),
    ],
)
def test_a_line_tndhms_cannot_read_is_named(text, message):
    with pytest.raises(CfgError, match=message):
        read_cfg(text)
