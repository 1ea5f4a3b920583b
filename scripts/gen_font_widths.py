#!/usr/bin/env python3
"""The advance widths of DejaVu Sans's printable ASCII characters, for core/figure/text_width.cpp.

Figures are drawn with cairo in DejaVu Sans (fonts-dejavu-core); their layout is computed in
core/figure, which draws nothing and so cannot ask cairo how wide a label is. This reads the
widths from the font file itself (its cmap and hmtx tables) and prints them as a C++ array in
units of 1/units_per_em of the font size.

Run: python3 scripts/gen_font_widths.py > core/figure/dejavu_sans_widths.inc
     python3 scripts/gen_font_widths.py --bold > core/figure/dejavu_sans_bold_widths.inc
(the regular face's array is kAdvance, the bold face's kBoldAdvance; a font file's path may follow)
"""
import struct
import sys


def tables(data):
    count = struct.unpack(">H", data[4:6])[0]
    out = {}
    for i in range(count):
        tag, _, offset, length = struct.unpack(">4sIII", data[12 + 16 * i:28 + 16 * i])
        out[tag.decode()] = data[offset:offset + length]
    return out


def cmap_format4(cmap):
    """Character code -> glyph index, from the Windows Unicode BMP subtable (format 4)."""
    n = struct.unpack(">H", cmap[2:4])[0]
    for i in range(n):
        platform, encoding, offset = struct.unpack(">HHI", cmap[4 + 8 * i:12 + 8 * i])
        if (platform, encoding) == (3, 1):
            sub = cmap[offset:]
            assert struct.unpack(">H", sub[0:2])[0] == 4
            segs = struct.unpack(">H", sub[6:8])[0] // 2
            ends = struct.unpack(f">{segs}H", sub[14:14 + 2 * segs])
            at = 16 + 2 * segs
            starts = struct.unpack(f">{segs}H", sub[at:at + 2 * segs])
            deltas = struct.unpack(f">{segs}h", sub[at + 2 * segs:at + 4 * segs])
            range_at = at + 4 * segs
            offsets = struct.unpack(f">{segs}H", sub[range_at:range_at + 2 * segs])

            def glyph(c):
                for k in range(segs):
                    if starts[k] <= c <= ends[k]:
                        if offsets[k] == 0:
                            return (c + deltas[k]) & 0xFFFF
                        p = range_at + 2 * k + offsets[k] + 2 * (c - starts[k])
                        g = struct.unpack(">H", sub[p:p + 2])[0]
                        return (g + deltas[k]) & 0xFFFF if g else 0
                return 0
            return glyph
    sys.exit("no Windows Unicode BMP cmap")


def main():
    args = sys.argv[1:]
    bold = "--bold" in args
    args = [a for a in args if a != "--bold"]
    face = "DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf"
    path = args[0] if args else "/usr/share/fonts/truetype/dejavu/" + face
    prefix = "kBold" if bold else "k"
    data = open(path, "rb").read()
    t = tables(data)
    units = struct.unpack(">H", t["head"][18:20])[0]
    metrics = struct.unpack(">H", t["hhea"][34:36])[0]
    glyph = cmap_format4(t["cmap"])

    def advance(g):
        g = min(g, metrics - 1)  # glyphs past the last metric share its advance
        return struct.unpack(">H", t["hmtx"][4 * g:4 * g + 2])[0]

    widths = [advance(glyph(c)) for c in range(32, 127)]
    print(f"// {path.rsplit('/', 1)[-1]}: {units} units per em; characters 32 (space) to 126 (~).")
    print(f"constexpr double {prefix}UnitsPerEm = {units};")
    print(f"constexpr std::array<unsigned short, 95> {prefix}Advance = {{")
    for i in range(0, 95, 12):
        print("    " + ", ".join(str(w) for w in widths[i:i + 12]) + ",")
    print("};")


if __name__ == "__main__":
    main()
