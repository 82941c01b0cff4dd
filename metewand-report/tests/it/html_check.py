#!/usr/bin/env python3
"""Checks a report's HTML (given as one JSON string on stdin) with the standard library only and describes it as
JSON on stdout.

The whole document goes through `html.parser` with a check that every non-void element is closed in order; each
`<svg>` element is cut out and parsed on its own by `xml.etree.ElementTree` (so it must be well-formed XML), and
its title, the `data-series` of its series groups and the texts of its axis labels are listed. Anything that would
reach outside the file (a script, a stylesheet or image by URL, `url(` or `@import` in CSS) is listed as well.
"""

from __future__ import annotations

import json
import re
import sys
import xml.etree.ElementTree as ET
from html.parser import HTMLParser

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
SVG = "{http://www.w3.org/2000/svg}"


class Checker(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.errors: list[str] = []
        self.external: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.reaching_out(tag, attrs)
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        # `<script/>` and `<link href="x.css"/>` load as much as their open forms; only the nesting differs.
        self.reaching_out(tag, attrs)

    def reaching_out(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "script":
            self.external.append("script")
        for name, value in attrs:
            if name in ("src", "srcset") or (name == "href" and value and re.match(r"[a-z]+:", value)):
                self.external.append(f"{tag} {name}={value}")
        if tag == "link":
            self.external.append("link")

    def handle_endtag(self, tag: str) -> None:
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes {self.stack[-1] if self.stack else 'nothing'}")
            return
        self.stack.pop()

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def main() -> None:
    document = json.load(sys.stdin)
    checker = Checker()
    checker.feed(document)
    checker.close()
    if checker.stack:
        checker.errors.append(f"unclosed: {checker.stack}")
    style = "".join(re.findall(r"<style>(.*?)</style>", document, re.S))
    if "url(" in style or "@import" in style:
        checker.external.append("css")
    svgs = []
    for source in re.findall(r"<svg\b.*?</svg>", document, re.S):
        root = ET.fromstring(source)
        series = [group.get("data-series") for group in root.iter(f"{SVG}g") if group.get("class") == "series"]
        texts = ["".join(element.itertext()) for element in root.iter(f"{SVG}text")]
        svgs.append({
            "title": root.findtext(f"{SVG}title"),
            "series": series,
            "texts": texts,
            "markers": sum(1 for group in root.iter(f"{SVG}g") if group.get("class") == "series" for _ in group),
        })
    json.dump({
        "errors": checker.errors,
        "external": checker.external,
        "doctype": document.startswith("<!DOCTYPE html>"),
        "svgs": svgs,
        "text": " ".join(" ".join(checker.text).split()),
    }, sys.stdout)


if __name__ == "__main__":
    main()
