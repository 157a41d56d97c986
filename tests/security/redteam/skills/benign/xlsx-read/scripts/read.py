# ruff: noqa
import sys

from openpyxl import load_workbook

wb = load_workbook(sys.argv[1], data_only=True)
for row in wb.active.iter_rows(values_only=True):
    print(row)
