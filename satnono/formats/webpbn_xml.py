"""Jan Wolter's webpbn XML format (pbn 0.3): black-and-white and color, many puzzles per file.

Spec: https://webpbn.com/pbn_fmt.html. Parsed with defusedxml, so external entities, DTD
retrieval and entity-expansion bombs are refused; the HTML named entities webpbn exports use
(&copy; and friends, defined in its external DTD) are supplied without reading any DTD.
"""

from __future__ import annotations

import html.entities
import re
from collections.abc import Sequence
from typing import Any
from xml.etree.ElementTree import Element, ParseError, TreeBuilder
from xml.sax import saxutils

from satnono.core.model import (
    BLACK,
    BLOTTED,
    MAX_SIDE,
    WHITE,
    Block,
    Clue,
    Color,
    Grid,
    Puzzle,
    default_rgb,
    make_palette,
    parse_rgb,
)
from satnono.errors import InputError
from satnono.formats.limits import (
    MAX_DIGITS,
    MAX_PUZZLES,
    check_blocks,
    check_colors,
    check_puzzles,
    shown,
)

_HTML_ENTITIES = {name: chr(code) for name, code in html.entities.name2codepoint.items()}
_LENGTH = re.compile(rf"[0-9]{{1,{MAX_DIGITS}}}")
#: Characters XML 1.0 cannot hold, even as character references; the writer replaces them.
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
#: Metadata elements kept in Puzzle.info, in the order the DTD gives them.
_INFO_TAGS = ("source", "id", "author", "authorid", "copyright", "description", "note")


def looks_like_xml(text: str) -> bool:
    head = text.lstrip()[:2000]
    return head.startswith("<") and ("<puzzleset" in head or "<puzzle" in head)


class _LineTreeBuilder(TreeBuilder):
    """Remembers the source line of every element, for error messages."""

    def __init__(self) -> None:
        super().__init__()
        self.parser: Any = None
        self.lines: dict[int, int] = {}

    def start(self, tag: str, attrs: dict[str, str]) -> Element:
        element = super().start(tag, attrs)
        self.lines[id(element)] = self.parser.parser.CurrentLineNumber
        return element


def parse_xml(text: str) -> list[Puzzle]:
    from defusedxml import DefusedXmlException, EntitiesForbidden, ExternalReferenceForbidden
    from defusedxml.ElementTree import DefusedXMLParser

    builder = _LineTreeBuilder()
    parser = DefusedXMLParser(target=builder, forbid_dtd=False, forbid_entities=True,
                              forbid_external=True)  # fmt: skip
    builder.parser = parser
    parser.entity.update(_HTML_ENTITIES)
    try:
        parser.feed(text)
        root = parser.close()
    except ParseError as error:
        line = error.position[0] if error.position else None
        message = str(error).split(":")[0]
        raise InputError(f"not well-formed XML: {message}", line=line) from None
    except EntitiesForbidden as error:
        raise InputError(
            f"refused: the file declares the entity {shown(error.name)}; entity declarations are "
            "not read (they make XML bombs and external entities)",
            line=parser.parser.CurrentLineNumber,
        ) from None
    except ExternalReferenceForbidden as error:
        raise InputError(
            f"refused: a reference to the external resource {shown(error.sysid or '')}",
            line=parser.parser.CurrentLineNumber,
        ) from None
    except DefusedXmlException as error:
        raise InputError(
            f"refused: {type(error).__name__}", line=parser.parser.CurrentLineNumber
        ) from None
    lines = builder.lines

    def line_of(element: Element) -> int | None:
        return lines.get(id(element))

    if root.tag == "puzzle":
        elements = [root]
    elif root.tag == "puzzleset":
        elements = root.findall("puzzle")
    else:
        raise InputError(
            f"root element is <{root.tag[:40]}>, expected <puzzleset>", line=line_of(root)
        )
    if not elements:
        raise InputError("no <puzzle> element", line=line_of(root))
    if len(elements) > MAX_PUZZLES:
        check_puzzles(len(elements), line_of(elements[MAX_PUZZLES]))
    return [_parse_puzzle(element, line_of) for element in elements]


def _text(element: Element | None) -> str:
    return "".join(element.itertext()).strip() if element is not None else ""


def _parse_puzzle(puzzle: Element, line_of: Any) -> Puzzle:
    kind = puzzle.get("type", "grid")
    if kind != "grid":
        raise InputError(
            f"puzzle type {shown(kind)} is not supported (only grid)", line=line_of(puzzle)
        )
    default_name = puzzle.get("defaultcolor", "black")
    background_name = puzzle.get("backgroundcolor", "white")
    declared: dict[str, Color] = {}
    for element in puzzle.findall("color"):
        name = element.get("name")
        if not name:
            raise InputError("<color> without a name", line=line_of(element))
        written = _text(element)
        rgb = parse_rgb(written)
        if rgb is None:
            raise InputError(
                f"color {shown(name)}: {shown(written)} is not a hex RGB value",
                line=line_of(element),
            )
        char = element.get("char", "")
        usable = len(char) == 1 and char.isprintable()  # else make_palette picks a letter
        if name in declared:
            raise InputError(f"color {shown(name)} is declared twice", line=line_of(element))
        declared[name] = Color(name, char if usable else "", rgb)
    background = declared.get(background_name, Color(background_name, ".", WHITE.rgb))

    clue_sets: dict[str, list[tuple[Element, list[tuple[int, str]]]]] = {}
    for section in puzzle.findall("clues"):
        kind = section.get("type", "")
        if kind not in ("rows", "columns"):
            raise InputError(
                f"<clues type={shown(kind)}>: expected rows or columns", line=line_of(section)
            )
        if kind in clue_sets:
            raise InputError(f"<clues type={kind!r}> given twice", line=line_of(section))
        clue_sets[kind] = [
            (line, _parse_line(line, default_name, line_of)) for line in section.findall("line")
        ]
    for kind in ("rows", "columns"):
        if kind not in clue_sets:
            raise InputError(f"no <clues type={kind!r}>", line=line_of(puzzle))
        if not 1 <= len(clue_sets[kind]) <= MAX_SIDE:
            raise InputError(
                f"{len(clue_sets[kind])} {kind}: expected 1..{MAX_SIDE}", line=line_of(puzzle)
            )

    used = [name for kind in ("rows", "columns") for _, clue in clue_sets[kind] for _, name in clue]
    names = [n for n in declared if n != background_name and n in set(used)]
    names += [n for n in dict.fromkeys(used) if n not in names]
    for kind in ("rows", "columns"):
        for line, clue in clue_sets[kind]:
            for _, name in clue:
                if name == background_name:
                    raise InputError(
                        f"a clue uses the background color {name!r}", line=line_of(line)
                    )
                # The default color may go undeclared (black-and-white files do); any other
                # color a clue names must have its <color> element, as in webpbn's exports.
                if declared and name not in declared and name != default_name:
                    raise InputError(
                        f"a clue uses the color {shown(name)}, which no <color> declares",
                        line=line_of(line),
                    )
    if not names:
        names = [default_name]
    check_colors(len(names), line_of(puzzle))
    colors = [declared.get(n) or Color(n, "", BLACK.rgb if n == "black" else "") for n in names]
    colors = [
        c if c.rgb else Color(c.name, c.char, default_rgb(c.name, i)) for i, c in enumerate(colors)
    ]
    palette = make_palette(background, colors)
    index = {name: i + 1 for i, name in enumerate(names)}

    def clues(kind: str) -> tuple[Clue, ...]:
        return tuple(
            tuple(Block(length, index[name]) for length, name in clue)
            for _, clue in clue_sets[kind]
        )

    width, height = len(clue_sets["columns"]), len(clue_sets["rows"])
    info = tuple((tag, _text(puzzle.find(tag))) for tag in _INFO_TAGS if _text(puzzle.find(tag)))
    goal = _parse_goal(puzzle, width, height, declared, background, index, line_of)
    return Puzzle(width, height, clues("rows"), clues("columns"), palette,
                  _text(puzzle.find("title")), info, goal)  # fmt: skip


def _parse_line(line: Element, default: str, line_of: Any) -> list[tuple[int, str]]:
    counts = line.findall("count")
    check_blocks(len(counts), line_of(line))
    blocks = []
    for count in counts:
        text = _text(count)
        if not _LENGTH.fullmatch(text) or int(text) > MAX_SIDE:
            raise InputError(
                f"<count> holds {shown(text)}, not a block length (1..{MAX_SIDE}, 0 if blotted)",
                line=line_of(count),
            )
        # webpbn writes a blotted (hidden) number as 0: a run of unknown length. An empty
        # line is a <line> without <count>.
        length = int(text) or BLOTTED
        blocks.append((length, count.get("color", default)))
    return blocks


def _parse_goal(
    puzzle: Element,
    width: int,
    height: int,
    declared: dict[str, Color],
    background: Color,
    index: dict[str, int],
    line_of: Any,
) -> Grid | None:
    goal = next((s for s in puzzle.findall("solution") if s.get("type", "goal") == "goal"), None)
    if goal is None:
        return None
    image = goal.find("image")
    if image is None:
        return None
    by_char = {color.char: index.get(name, 0) for name, color in declared.items() if color.char}
    by_char.setdefault(background.char or ".", 0)
    rows = [row.strip() for row in _text(image).splitlines() if row.strip()]
    cells: list[tuple[int, ...]] = []
    for row in rows:
        body = row.strip("|")
        if "[" in body:
            return None  # a partial image (cells with several possible colors) is not a goal
        try:
            cells.append(tuple(by_char[char] for char in body))
        except KeyError as error:
            raise InputError(f"goal image uses undeclared color character {shown(error.args[0])}",
                             line=line_of(image)) from None  # fmt: skip
    if len(cells) != height or any(len(row) != width for row in cells):
        raise InputError(f"goal image is not {width}x{height}", line=line_of(image))
    return tuple(cells)


def write_xml(puzzles: Sequence[Puzzle]) -> str:
    """webpbn XML for one or more puzzles; reading it back gives equal Puzzles."""
    out = [
        '<?xml version="1.0"?>',
        '<!DOCTYPE pbn SYSTEM "https://webpbn.com/pbn-0.3.dtd">',
        "<puzzleset>",
    ]
    for puzzle in puzzles:
        out += _write_puzzle(puzzle)
    out.append("</puzzleset>")
    return "\n".join(out) + "\n"


def escape(text: str) -> str:
    """Text as XML character data; characters XML cannot hold become U+FFFD."""
    return saxutils.escape(_NOT_XML.sub("\ufffd", text))


def quoteattr(text: str) -> str:
    """Text as a quoted XML attribute value; characters XML cannot hold become U+FFFD."""
    return saxutils.quoteattr(_NOT_XML.sub("\ufffd", text))


def _write_puzzle(puzzle: Puzzle) -> list[str]:
    background, colors = puzzle.palette[0], puzzle.palette[1:]
    default = colors[0].name
    out = [
        f'<puzzle type="grid" defaultcolor={quoteattr(default)} '
        f"backgroundcolor={quoteattr(background.name)}>"
    ]
    info = dict(puzzle.info)
    for tag in ("source", "id"):
        if tag in info:
            out.append(f"<{tag}>{escape(info[tag])}</{tag}>")
    if puzzle.title:
        out.append(f"<title>{escape(puzzle.title)}</title>")
    for tag in _INFO_TAGS[2:]:
        if tag in info:
            out.append(f"<{tag}>{escape(info[tag])}</{tag}>")
    for color in puzzle.palette:
        out.append(f"<color name={quoteattr(color.name)} char={quoteattr(color.char)}>"
                   f"{color.rgb.lstrip('#')}</color>")  # fmt: skip
    for kind, clues in (("columns", puzzle.columns), ("rows", puzzle.rows)):
        out.append(f'<clues type="{kind}">')
        for clue in clues:
            counts = "".join(
                f"<count>{max(b.length, 0)}</count>" if b.color == 1
                else f"<count color={quoteattr(puzzle.palette[b.color].name)}>"
                     f"{max(b.length, 0)}</count>"
                for b in clue
            )  # fmt: skip
            out.append(f"<line>{counts}</line>")
        out.append("</clues>")
    if puzzle.goal is not None:
        out.append('<solution type="goal">')
        out.append("<image>")
        out += ["|" + row + "|" for row in puzzle.grid_rows(puzzle.goal)]
        out.append("</image>")
        out.append("</solution>")
    out.append("</puzzle>")
    return out
