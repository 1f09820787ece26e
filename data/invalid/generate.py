#!/usr/bin/env python3
"""Regenerates data/invalid/: one small file per class of bad input, and
MANIFEST.tsv saying what each must give (error kind, line, words of the
message). Run from anywhere: python3 data/invalid/generate.py"""
import bz2, gzip, io, os, shutil, tarfile

here = os.path.dirname(os.path.abspath(__file__))
os.chdir(here)
for f in os.listdir('.'):
    if f not in ('generate.py', 'README.md'):
        shutil.rmtree(f) if os.path.isdir(f) else os.remove(f)

BANNER = '%%MatrixMarket matrix coordinate real general\n'


def tar_gz(name, members, mode='w:gz'):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode=mode, format=tarfile.USTAR_FORMAT) as t:
        for m, data in members:
            info = tarfile.TarInfo(m); info.size = len(data); info.mtime = 0
            t.addfile(info, io.BytesIO(data))
    with open(name, 'wb') as f:
        f.write(buf.getvalue())


# Inputs that are not one literal text: a directory, gzip streams, archives.
os.mkdir('a-directory.mtx'); open('a-directory.mtx/.keep', 'w').close()
good = (BANNER + '4 4 4\n' + ''.join('%d %d %d.5\n' % (i, i, i) for i in range(1, 5))).encode()
gz = gzip.compress(good, mtime=0)
tar_gz('no-mtx-inside.tar.gz', [('no-mtx-inside/README.txt', b'nothing here\n'), ('no-mtx-inside/x_b.mat', b'\0' * 64)])
small = (BANNER + '1 1 1\n1 1 1\n').encode()
tar_gz('ambiguous.tar.gz', [('ambiguous/a.mtx', small), ('ambiguous/b.mtx', small)])
tar_gz('bad-member.tar.gz', [('bad-member/bad-member.mtx', (BANNER + '2 2 1\n1 3 1\n').encode())])
whole = open('ambiguous.tar.gz', 'rb').read()
tar_gz('two-edge-lists.tar.bz2', [('two-edge-lists/a.edges', b'1 2\n'), ('two-edge-lists/b.txt', b'2 3\n')], 'w:bz2')
# Two graph files beside a description: which graph is the user's to say.
tar_gz('two-graph-files.tar.gz', [('two-graph-files/a.gml', b'graph [ node [ id 1 ] ]\n'),
                                  ('two-graph-files/b.net', b'*Vertices 1\n'),
                                  ('two-graph-files/about.txt', b'Two graphs.\n')])
good_bz2 = bz2.compress(good)
tar_gz('empty.tar.gz', [])  # only tar's end marker: zeros
snap_gz = gzip.compress(b'# g\n' + b''.join(b'%d\t%d\n' % (i, i + 1) for i in range(200)), mtime=0)

# (file, its contents or None when written above or absent, error kind, line,
#  words the message must contain), in the order of MANIFEST.tsv.
CASES = [
    # --- issue 2: the classes every reader must refuse cleanly ---
    ('missing-file.mtx', None, 'io_error', 0, 'no such file'),
    ('a-directory.mtx', None, 'io_error', 0, 'is a directory'),
    ('empty.mtx', '', 'parse_error', 0, 'empty file'),
    ('no-banner.mtx', '3 3 1\n1 1 1.0\n', 'parse_error', 1, 'missing Matrix Market banner'),
    ('garbled-banner.mtx', '%%MatrixMarkt matrix coordinate real general\n1 1 1\n1 1 1\n', 'parse_error', 1, 'garbled Matrix Market banner'),
    ('banner-short.mtx', '%%MatrixMarket matrix coordinate real\n1 1 1\n1 1 1\n', 'parse_error', 1, 'must have 5 words'),
    ('unknown-object.mtx', '%%MatrixMarket vector coordinate real general\n1 1 1\n1 1 1\n', 'parse_error', 1, "unknown object 'vector'"),
    ('unknown-format.mtx', '%%MatrixMarket matrix coordinat real general\n1 1 1\n1 1 1\n', 'parse_error', 1, "unknown format 'coordinat'"),
    ('unknown-field.mtx', '%%MatrixMarket matrix coordinate rael general\n1 1 1\n1 1 1\n', 'parse_error', 1, "unknown field 'rael'"),
    ('unknown-symmetry.mtx', '%%MatrixMarket matrix coordinate real symetric\n1 1 1\n1 1 1\n', 'parse_error', 1, "unknown symmetry 'symetric'"),
    ('missing-size-line.mtx', BANNER + '% only comments\n%\n', 'parse_error', 4, 'missing size line'),
    ('size-line-negative.mtx', BANNER + '3 -3 1\n1 1 1\n', 'parse_error', 2, "columns '-3' is negative"),
    ('size-line-non-numeric.mtx', BANNER + 'three 3 1\n1 1 1\n', 'parse_error', 2, "rows 'three' is not a number"),
    ('size-line-too-few.mtx', BANNER + '% c\n3 3\n1 1 1\n', 'parse_error', 3, 'expected 3 numbers (rows columns entries), found 2'),
    ('size-line-entries-negative.mtx', BANNER + '3 3 -1\n', 'parse_error', 2, "entries '-1' is negative"),
    ('size-line-real.mtx', BANNER + '3 3 2.0\n1 2 1\n2 3 1\n', 'parse_error', 2, "entries '2.0' is not a whole number"),
    ('fewer-entries.mtx', BANNER + '3 3 4\n1 1 1\n2 2 2\n3 3 3\n', 'parse_error', 2, 'declares 4 entries, but the file ends after 3 entries'),
    ('more-entries.mtx', BANNER + '3 3 2\n1 1 1\n2 2 2\n3 3 3\n', 'parse_error', 5, 'entry 3 is one more than the 2'),
    ('row-index-zero.mtx', BANNER + '5 5 2\n1 1 1\n0 2 1\n', 'parse_error', 4, 'row index 0 out of range 1..5'),
    ('column-index-beyond.mtx', BANNER + '5 5 2\n1 1 1\n2 6 1\n', 'parse_error', 4, 'column index 6 out of range 1..5'),
    ('row-index-negative.mtx', BANNER + '5 5 1\n-1 2 1\n', 'parse_error', 3, "row index '-1' is negative"),
    ('value-non-numeric.mtx', BANNER + '2 2 2\n1 1 1\n2 2 abc\n', 'parse_error', 4, "value 'abc' is not a number"),
    ('value-nan.mtx', BANNER + '2 2 1\n1 1 nan\n', 'parse_error', 3, "value 'nan' is not a finite number"),
    ('value-inf.mtx', BANNER + '2 2 1\n1 1 -inf\n', 'parse_error', 3, "value '-inf' is not a finite number"),
    ('fewer-fields.mtx', BANNER + '2 2 2\n1 1 1\n2 2\n', 'parse_error', 4, 'expected 3 fields (row column value), found 2'),
    ('truncated.mtx.gz', gz[: len(gz) - 12], 'io_error', 0, 'truncated gzip file'),
    ('corrupt.mtx.gz', gz[:10] + bytes(b ^ 0x5a for b in gz[10:-8]) + gz[-8:], 'io_error', 0, 'corrupt gzip data'),
    ('huge-declared-count.mtx', BANNER + '2147483647 2147483647 1000000000000\n1 1 1.0\n2 2 2.0\n', 'parse_error', 2, 'declares 1000000000000 entries, but the file ends after 2 entries'),
    ('complex.mtx', '%%MatrixMarket matrix coordinate complex general\n2 2 1\n1 1 1.0 2.0\n', 'not_supported', 0, 'complex'),
    ('hermitian.mtx', '%%MatrixMarket matrix coordinate real hermitian\n2 2 1\n1 1 1.0\n', 'not_supported', 0, 'hermitian'),
    # --- further structure errors ---
    ('symmetric-not-square.mtx', '%%MatrixMarket matrix coordinate real symmetric\n3 4 1\n1 1 1\n', 'parse_error', 2, 'must be square'),
    ('skew-nonzero-diagonal.mtx', '%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n2 1 1\n2 2 5\n', 'parse_error', 4, 'diagonal of a skew-symmetric matrix'),
    ('pattern-skew.mtx', '%%MatrixMarket matrix coordinate pattern skew-symmetric\n3 3 1\n2 1\n', 'parse_error', 1, 'cannot be \'skew-symmetric\''),
    ('array-pattern.mtx', '%%MatrixMarket matrix array pattern general\n2 1\n', 'parse_error', 1, "cannot be 'pattern'"),
    ('array-too-few.mtx', '%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n', 'parse_error', 2, 'declares 4 entries, but the file ends after 3'),
    ('integer-with-fraction.mtx', '%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 1 1.5\n', 'parse_error', 3, "value '1.5' is not an integer"),
    ('binary-garbage.mtx', bytes(range(256)) * 4, 'parse_error', 1, 'missing Matrix Market banner'),
    ('nul-byte.mtx', BANNER + '2 2 1\n1 1\x001.0\n', 'parse_error', 3, "'1\\x001.0'"),
    ('unrecognized.dat', 'hello world\n', 'parse_error', 1, 'unrecognized format'),
    # --- issue 6: what fuzzing and real files teach ---
    ('crlf-stray-cr.mtx', BANNER.replace('\n', '\r\n') + '2 2 1\r\n1 2\r3.0\r\n', 'parse_error', 3, "'2\\x0d3.0'"),
    ('trailing-garbage.mtx', BANNER + '2 2 2\n1 1 1.0\n2 2 2.0 xyz\n', 'parse_error', 4, "found 4 (unexpected 'xyz')"),
    ('trailing-comment-on-entry.mtx', BANNER + '2 2 1\n1 1 1.0 % note\n', 'parse_error', 3, "unexpected '%'"),
    ('tabs-missing-value.mtx', BANNER + '2 2 2\n1\t1\t1.0\n2\t2\t\n', 'parse_error', 4, 'found 2'),
    ('double-plus.mtx', BANNER + '2 2 1\n1 1 ++1\n', 'parse_error', 3, "value '++1' is not a number"),
    ('plus-minus.mtx', BANNER + '2 2 1\n1 1 +-1\n', 'parse_error', 3, "value '+-1' is not a number"),
    ('plus-alone.mtx', BANNER + '2 2 1\n+ 1 1\n', 'parse_error', 3, "row index '+' is not a positive integer"),
    ('exponent-empty.mtx', BANNER + '2 2 1\n1 1 1e\n', 'parse_error', 3, "value '1e'"),
    ('exponent-dangling-sign.mtx', BANNER + '2 2 1\n1 1 1.5e+\n', 'parse_error', 3, "value '1.5e+'"),
    ('exponent-fraction.mtx', BANNER + '2 2 1\n1 1 1e3.5\n', 'parse_error', 3, "value '1e3.5'"),
    ('very-long-line.mtx', BANNER + '2 2 1\n1 1 ' + 'x' * 100000 + '\n', 'parse_error', 3, "value 'xxxxxxxxxxxxxxxxxxxxxxxx...' is not a number"),
    ('very-long-number.mtx', BANNER + '2 2 1\n1 1 ' + '9' * 20000 + '\n', 'parse_error', 3, 'overflows double precision'),
    ('index-beyond-int32.mtx', BANNER + '5 5 1\n2147483648 1 1\n', 'parse_error', 3, 'row index 2147483648 out of range 1..5'),
    ('index-beyond-int64.mtx', BANNER + '5 5 1\n1 99999999999999999999999 1\n', 'parse_error', 3, "column index '99999999999999999999999' out of range 1..5"),
    ('size-beyond-int32.mtx', BANNER + '3000000000 3 1\n1 1 1\n', 'parse_error', 2, "exceeds perron's 32-bit index limit"),
    ('value-overflows-double.mtx', BANNER + '2 2 1\n1 1 1e309\n', 'parse_error', 3, "value '1e309' overflows double precision"),
    ('integer-overflows-int64.mtx', '%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 1 9223372036854775808\n', 'parse_error', 3, 'does not fit a 64-bit integer'),
    ('no-mtx-inside.tar.gz', None, 'parse_error', 0, 'the archive holds no .mtx file, graph file (.graphml, .gml, .net) or edge list (members: no-mtx-inside/README.txt, no-mtx-inside/x_b.mat)'),
    ('ambiguous.tar.gz', None, 'parse_error', 0, 'several .mtx files and none is named ambiguous.mtx'),
    ('bad-member.tar.gz', None, 'parse_error', 3, 'bad-member.tar.gz:bad-member/bad-member.mtx:3: column index 3 out of range 1..2'),
    ('truncated.tar.gz', whole[: len(whole) // 2], 'io_error', 0, 'truncated.tar.gz'),
    ('two-edge-lists.tar.bz2', None, 'parse_error', 0, 'several edge lists and none is named two-edge-lists.*'),
    ('two-graph-files.tar.gz', None, 'parse_error', 0, 'several graph files (.graphml, .gml, .net) and none is named two-graph-files.*'),
    ('truncated.mtx.bz2', good_bz2[: len(good_bz2) // 2], 'io_error', 0, 'truncated.mtx.bz2: cannot read it'),
    # --- SNAP edge lists ---
    ('snap-empty.txt', '', 'parse_error', 0, 'empty file'),
    ('snap-non-numeric.txt', '# c\n0 1\n1 two\n', 'parse_error', 3, "target id 'two' is not a non-negative integer"),
    ('snap-negative-id.txt', '0 1\r\n-4 1\r\n', 'parse_error', 2, "source id '-4' is negative"),
    ('snap-three-fields.txt', '0\t1\n1\t2\t0.5\n', 'parse_error', 2, "found 3 fields where the list's lines have 2"),
    ('edges-five-fields.txt', '0 1 1 1190000000 7\n', 'parse_error', 1, "or 4 (from to weight time), found 5 (unexpected '7')"),
    ('edges-time-not-a-number.txt', '% asym positive\n0 1 1 1190000000\n1 2 1 noon\n', 'parse_error', 3, "time 'noon' is not a number"),
    ('edges-missing-weight.csv', 'from,to,weight\n0,1,2\n1,2\n', 'parse_error', 3, "found 2 fields where the list's lines have 3"),
    ('edges-weight-nan.csv', '0,1,0.5\n1,2,nan\n', 'parse_error', 2, "weight 'nan'"),
    ('edges-empty-field.csv', '0,1\n0,,1\n', 'parse_error', 2, 'target id is an empty field'),
    ('edges-trailing-comma.csv', '0,1\n1,2,\n', 'parse_error', 2, "found 3 fields where the list's lines have 2"),
    ('edges-data-weight-text.edgelist', "1 2 {}\n2 3 {'weight': 'heavy'}\n", 'parse_error', 2, "the 'weight' in the edge's data is not a number"),
    ('edges-named-field-count.csv', 'Source,Target,Type,Weight\n1,2,Directed,1\n2,3,Directed\n', 'parse_error', 3, 'found 3 fields where the header names 4'),
    ('edges-open-quote.csv', 'Source,Target,Label\n1,2,"open\n2,3,x\n', 'parse_error', 2, 'double quote is not closed'),
    ('edges-name-among-ids.txt', '1 2\n2 alice\n', 'parse_error', 2, "target id 'alice' is not a non-negative integer (the list's first edge gives integer ids"),
    ('edges-names-weight-text.txt', 'alice bob 1\nbob carol heavy\n', 'parse_error', 2, "weight 'heavy' is not a finite number"),
    ('snap-one-field.txt', '0 1\n7\n', 'parse_error', 2, 'expected 2 fields (from to), 3 (from to weight) or 4 (from to weight time), found 1'),
    ('snap-id-overflow.txt', '0 1\n1 99999999999999999999\n', 'parse_error', 2, 'does not fit a 63-bit integer'),
    ('snap-truncated.txt.gz', snap_gz[: len(snap_gz) // 2], 'io_error', 0, 'truncated gzip file'),
    ('graphml-mismatched-tag.graphml', '<graphml>\n<graph edgedefault="directed">\n<node id="a">\n<node id="b"/>\n</graph>\n</graphml>\n', 'parse_error', 5, 'not well-formed XML: mismatched tag'),
    ('graphml-weight-text.graphml', '<graphml><key id="w" for="edge" attr.name="weight"/>\n<graph><edge source="a" target="b">\n<data key="w">heavy</data></edge></graph></graphml>\n', 'parse_error', 3, "edge weight 'heavy' is not a finite number"),
    ('graphml-hyperedge.graphml', '<graphml><graph>\n<node id="a"/><node id="b"/><node id="c"/>\n<hyperedge><endpoint node="a"/></hyperedge></graph></graphml>\n', 'parse_error', 3, 'hyperedge'),
    ('not-graphml.xml', '<?xml version="1.0"?>\n<gexf version="1.2"><graph/></gexf>\n', 'parse_error', 2, 'not GraphML'),
    ('gml-edge-to-no-node.gml', 'graph [\n  node [ id 1 ]\n  edge [ source 1 target 2 ]\n]\n', 'parse_error', 3, "the edge's target 2 is no node's id"),
    ('gml-unclosed.gml', 'Creator "x"\ngraph [\n  node [ id 1 ]\n', 'parse_error', 2, "the graph's list is not closed"),
    ('gml-id-twice.gml', 'graph [\n  node [ id 1 ]\n  node [ id 1 ]\n]\n', 'parse_error', 3, 'node id 1 is declared twice'),
    ('pajek-beyond-vertices.net', '*Vertices 3\n1 "a"\n*Arcs\n1 2\n2 4\n', 'parse_error', 5, '4 is beyond the 3 vertices'),
    ('pajek-no-vertices.net', '% x\n*Arcs\n1 2\n', 'parse_error', 2, '*Arcs before *Vertices'),
    ('pajek-matrix-short-row.net', '*Vertices 3\n*Matrix\n0 1 0\n1 1\n0 1 0\n', 'parse_error', 4, 'row 2 of *Matrix holds 2 values; *Vertices declares 3'),
    ('pajek-matrix-missing-rows.net', '*Vertices 3\n*Matrix\n0 1 0\n', 'parse_error', 0, '*Matrix (line 2) ends after 1 of the 3 rows'),
    ('graphml-undeclared-key.graphml', '<graphml><graph edgedefault="directed">\n<node id="a"/><node id="b"/>\n<edge source="a" target="b"><data key="w">2</data></edge>\n</graph></graphml>\n', 'parse_error', 3, "a <data> of key 'w', which no <key> declares"),
    ('graphml-weight-key-late.graphml', '<graphml><graph edgedefault="directed">\n<edge source="a" target="b"><data key="w">2</data></edge>\n</graph>\n<key id="w" for="edge" attr.name="weight"/></graphml>\n', 'parse_error', 4, "the weight key 'w' is declared after edges that use it (line 2)"),
    ('empty.tar.gz', None, 'parse_error', 0, 'the archive holds no .mtx file'),
]

for name, data, kind, line, words in CASES:
    if data is not None:
        with open(name, 'wb') as f:
            f.write(data.encode() if isinstance(data, str) else data)

with open('MANIFEST.tsv', 'w') as f:
    f.write('# file\tkind\tline\tthe message must contain\n')
    for name, _, kind, line, words in CASES:
        f.write('%s\t%s\t%d\t%s\n' % (name, kind, line, words))
print(len(CASES), 'cases')
