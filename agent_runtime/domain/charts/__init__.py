"""Figures that cite their numbers: charts drawn by code from values the cited sources state.

- `spec`   — a chart as the model asks for it, validated (kinds, sizes, finite values, ids);
- `values` — every value checked against its source's snapshot with the citation check's own
  number reading (`citecheck.facts`): 1,234 = 1.2 thousand, 12% = 百分之十二, 3亿 = 300 million;
- `draw`   — matplotlib (Agg, imported on the first chart) to SVG with its text as text, and PNG;
- `inreport` — the figures of a report: numbered in order, paths from the report's folder, checked
  again at finalization and recorded in report.citations.json as a value check.
"""
