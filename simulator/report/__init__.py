"""The HTML report: matplotlib charts as inline SVG and a Jinja2 template (see build.py)."""
