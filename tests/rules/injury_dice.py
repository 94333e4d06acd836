"""Scripted D66 rolls (tens, units) that land on one result of the 2023 Lasting Injury
table (rules/data), named so the wrap-up tests read as the table does."""

LESSON_LEARNED = [1, 1]
OUT_COLD = [2, 1]
CONVALESCENCE = [3, 1]
OLD_BATTLE_WOUND = [4, 1]
EYE_INJURY = [4, 4]
CAPTURED = [5, 5]
CRITICAL = [6, 1]
