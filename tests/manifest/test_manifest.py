"""Manifests: loading, validation messages, and writing pinned commits back."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipeline.errors import ManifestError
from pipeline.manifest import manifests as manifest
from pipeline.manifest.terms import TERM_SETS

SHA_A = "0123456789abcdef0123456789abcdef01234567"
SHA_B = "89abcdef0123456789abcdef0123456789abcdef"
SHA_C = "fedcba9876543210fedcba9876543210fedcba98"

VALID = f"""\
# A census of three trees.
# Comments, blank lines and key order survive `census pin`.

[census]
name = "tiny"          # trailing comment
description = "three small trees"
terms = "hints"

[[repos]]
repo = "octo/widgets"
ref = "main"
server_paths = ["mcp/server/", "tools"]
note = "first"
published = {{ readOnlyHint = 3, annotations = 12 }}

# a comment between entries

[[repos]]
note = "note before repo"
repo = "Octo-Org/gadgets"   # keeps its comment
commit = "{SHA_B.upper()}"  # pinned by hand
server_repo = "octo-org/gadgets-mcp"
source = "../trees/gadgets"

[[repos]]
repo = "someone/else.js"
source = "local.tar.gz"
"""


def write(tmp_path: Path, text: str, name: str = "census.toml") -> Path:
    folder = tmp_path / "manifests"
    folder.mkdir(exist_ok=True)
    path = folder / name
    path.write_bytes(text.encode("utf-8"))
    return path


def problems(path: Path) -> list[str]:
    """The lines of the ManifestError that loading ``path`` raises, each checked to name the file."""
    with pytest.raises(ManifestError) as caught:
        manifest.load(path)
    lines = str(caught.value).splitlines()
    assert lines
    for line in lines:
        assert line.startswith(f"{path}: "), line
    return [line[len(f"{path}: ") :] for line in lines]


# --- valid manifests -------------------------------------------------------------------


def test_valid_manifest(tmp_path: Path) -> None:
    path = write(tmp_path, VALID)
    m = manifest.load(path)
    assert m.path == path
    assert (m.name, m.description) == ("tiny", "three small trees")
    assert m.terms == ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")
    first, second, third = m.repos
    assert (first.index, first.repo, first.commit, first.ref) == (1, "octo/widgets", None, "main")
    assert first.server_paths == ("mcp/server", "tools")
    assert first.note == "first"
    assert first.published == (("readOnlyHint", 3), ("annotations", 12))
    assert first.source is None
    assert first.label == "octo/widgets@main"
    assert (second.index, second.repo, second.commit) == (2, "Octo-Org/gadgets", SHA_B)  # lower-cased
    assert second.server_repo == "octo-org/gadgets-mcp"
    assert second.source == tmp_path.resolve() / "trees" / "gadgets"  # relative to the manifest's folder
    assert second.label == f"Octo-Org/gadgets@{SHA_B}"
    assert third.source == tmp_path.resolve() / "manifests" / "local.tar.gz"
    assert (third.published, third.server_paths, third.server_repo, third.note) == ((), (), None, None)


def test_defaults(tmp_path: Path) -> None:
    m = manifest.load(write(tmp_path, '[[repos]]\nrepo = "a/b"\n', name="my-census.toml"))
    assert m.name == "my-census"
    assert m.description == ""
    assert m.terms == ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint", "annotations")
    assert m.repos[0].label == "a/b@HEAD"


def test_empty_manifest(tmp_path: Path) -> None:
    m = manifest.load(write(tmp_path, "# nothing yet\n"))
    assert m.repos == ()
    assert m.terms == TERM_SETS["published"]


@pytest.mark.parametrize("name", sorted(TERM_SETS))
def test_every_term_set_name(tmp_path: Path, name: str) -> None:
    assert manifest.load(write(tmp_path, f'[census]\nterms = "{name}"\n')).terms == TERM_SETS[name]


def test_explicit_term_list(tmp_path: Path) -> None:
    text = '[census]\nterms = ["readOnlyHint", "read_only_hint", "café"]\n[[repos]]\nrepo = "a/b"\n'
    assert manifest.load(write(tmp_path, text)).terms == ("readOnlyHint", "read_only_hint", "café")


def test_inline_table_entries_and_absolute_source(tmp_path: Path) -> None:
    target = tmp_path / "elsewhere" / "repo"
    text = f'repos = [{{ repo = "a/b", source = "{target}" }}, {{ repo = "c/d", commit = "{SHA_A}" }}]\n'
    m = manifest.load(write(tmp_path, text))
    assert [(e.repo, e.commit, e.source) for e in m.repos] == [("a/b", None, target.resolve()), ("c/d", SHA_A, None)]


def test_home_in_source(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    m = manifest.load(write(tmp_path, '[[repos]]\nrepo = "a/b"\nsource = "~/trees/x"\n'))
    assert m.repos[0].source == (tmp_path / "home" / "trees" / "x").resolve()


def test_published_manifest_of_the_project_loads() -> None:
    path = Path(__file__).resolve().parents[2] / "manifests" / "published-2026.toml"
    if not path.exists():
        pytest.skip("the published manifest is not in this checkout")
    m = manifest.load(path)
    assert all(e.commit is not None and len(e.commit) == 40 for e in m.repos)
    assert len({e.repo.lower() for e in m.repos}) == len(m.repos)


# --- invalid manifests: one line per problem, naming the file and the entry -------------

HEAD = '[census]\nname = "x"\n\n[[repos]]\nrepo = "fine/one"\n\n'

INVALID = [
    # (text, entry number or None, what the line says)
    (HEAD + '[[repos]]\nrepo = "a/b"\ncomit = "main"\n', 2, "unknown key 'comit'"),
    ('title = "x"\n' + HEAD, None, "unknown top-level key 'title'"),
    ('[census]\nterm = "hints"\n', None, "[census]: unknown key 'term'"),
    (HEAD + f'[[repos]]\nrepo = "a/b"\ncommit = "{SHA_A[:39]}"\n', 2, "is not 40 hexadecimal digits"),
    (HEAD + f'[[repos]]\nrepo = "a/b"\ncommit = "{SHA_A}0"\n', 2, "is not 40 hexadecimal digits"),
    (HEAD + '[[repos]]\nrepo = "a/b"\ncommit = "' + "g" * 40 + '"\n', 2, "is not 40 hexadecimal digits"),
    (HEAD + f'[[repos]]\nrepo = "a/b"\ncommit = "{SHA_A}\\n"\n', 2, "is not 40 hexadecimal digits"),
    (HEAD + f'[[repos]]\nrepo = "a/b"\ncommit = " {SHA_A}"\n', 2, "is not 40 hexadecimal digits"),
    (HEAD + '[[repos]]\nrepo = "Fine/One"\n', 2, "duplicate repository, already listed as entry 1"),
    (HEAD + '[[repos]]\nref = "main"\n', 2, "missing required key 'repo'"),
    (HEAD + "[[repos]]\n", 2, "missing required key 'repo'"),
    (HEAD + '[[repos]]\nrepo = "widgets"\n', 2, 'is not of the form "owner/name"'),
    (HEAD + '[[repos]]\nrepo = "a/b/c"\n', 2, 'is not of the form "owner/name"'),
    (HEAD + '[[repos]]\nrepo = "a b/c"\n', 2, 'is not of the form "owner/name"'),
    (HEAD + '[[repos]]\nrepo = "/b"\n', 2, 'is not of the form "owner/name"'),
    (HEAD + '[[repos]]\nrepo = "a/b\\n"\n', 2, 'is not of the form "owner/name"'),
    (HEAD + '[[repos]]\nrepo = "a/b\\nentry 9: fake"\n', 2, 'is not of the form "owner/name"'),
    (HEAD + '[[repos]]\nrepo = ""\n', 2, "repo must be a non-empty string"),
    (HEAD + "[[repos]]\nrepo = 5\n", 2, "repo must be a non-empty string"),
    (HEAD + '[[repos]]\nrepo = "a/b"\ncommit = 5\n', 2, "commit must be a non-empty string"),
    (HEAD + '[[repos]]\nrepo = "a/b"\nref = true\n', 2, "ref must be a non-empty string"),
    (HEAD + '[[repos]]\nrepo = "a/b"\nref = "a branch"\n', 2, "is not a branch or tag name"),
    (HEAD + '[[repos]]\nrepo = "a/b"\nref = "main\\u0000"\n', 2, "is not a branch or tag name"),
    (HEAD + '[[repos]]\nrepo = "a/b"\nserver_paths = "mcp"\n', 2, "server_paths must be a list"),
    (HEAD + '[[repos]]\nrepo = "a/b"\nserver_paths = ["mcp", 1]\n', 2, "server_paths must be a list"),
    (HEAD + '[[repos]]\nrepo = "a/b"\nserver_paths = [""]\n', 2, "server_paths must be a list"),
    (HEAD + '[[repos]]\nrepo = "a/b"\nserver_repo = "not a repo"\n', 2, 'server_repo \'not a repo\' is not of'),
    (HEAD + '[[repos]]\nrepo = "a/b"\nnote = []\n', 2, "note must be a non-empty string"),
    (HEAD + '[[repos]]\nrepo = "a/b"\nsource = 1\n', 2, "source must be a non-empty string"),
    (HEAD + '[[repos]]\nrepo = "a/b"\nsource = "x\\u0000y"\n', 2, "is not a usable path"),
    (HEAD + '[[repos]]\nrepo = "a/b"\nsource = "~no-such-user-here/x"\n', 2, "is not a usable path"),
    (HEAD + '[[repos]]\nrepo = "a/b"\npublished = 3\n', 2, "published must be a table"),
    (HEAD + '[[repos]]\nrepo = "a/b"\npublished = { annotations = "3" }\n', 2, "published must be a table"),
    (HEAD + '[[repos]]\nrepo = "a/b"\npublished = { annotations = -1 }\n', 2, "published must be a table"),
    (HEAD + '[[repos]]\nrepo = "a/b"\npublished = { annotations = true }\n', 2, "published must be a table"),
    (HEAD + '[[repos]]\nrepo = "a/b"\npublished = { annotations = 1.5 }\n', 2, "published must be a table"),
    ('[census]\nname = 1\n', None, "[census]: name must be a string"),
    ('[census]\ndescription = ["x"]\n', None, "[census]: description must be a string"),
    ('[census]\nterms = 5\n', None, "terms must be a term set name or a list of strings"),
    ('[census]\nterms = "hintz"\n', None, "unknown term set 'hintz'"),
    ('[census]\nterms = ["readOnlyHint", "READONLYHINT"]\n', None, "the same ignoring case"),
    ('[census]\nterms = []\n', None, "the term list is empty"),
    ('[census]\nterms = ["ok", ""]\n', None, "terms must be non-empty strings"),
    ('[census]\nterms = ["ok", 3]\n', None, "terms must be non-empty strings"),
    ('census = "x"\n', None, "[census] must be a table"),
    ('[[census]]\nname = "x"\n', None, "[census] must be a table"),
    ("repos = 5\n", None, "repos must be an array of tables"),
    ('[repos]\nrepo = "a/b"\n', None, "repos must be an array of tables"),
    ("repos = [1]\n", 1, "must be a table"),
]


@pytest.mark.parametrize(("text", "entry", "says"), INVALID)
def test_invalid(tmp_path: Path, text: str, entry: int | None, says: str) -> None:
    lines = problems(write(tmp_path, text))
    assert len(lines) == 1, lines
    assert says in lines[0]
    if entry is not None:
        assert lines[0].startswith(f"entry {entry}")


def test_entry_names_its_repo(tmp_path: Path) -> None:
    lines = problems(write(tmp_path, HEAD + '[[repos]]\nrepo = "a/b"\ncomit = "x"\n'))
    assert lines == [
        "entry 2 (a/b): unknown key 'comit' "
        "(allowed: repo, commit, ref, server_paths, server_repo, servers, note, source, published)"
    ]


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("[[repos]\nrepo = ", "not valid TOML"),
        ('[[repos]]\nrepo = "a/b"\nrepo = "c/d"\n', "not valid TOML"),
        ('[[repos]]\nrepo = "a/b\n', "not valid TOML"),
        ("a = \"\\uD800\"\n", "not valid TOML"),
        ("= 1\n", "not valid TOML"),
    ],
)
def test_not_toml(tmp_path: Path, text: str, says: str) -> None:
    lines = problems(write(tmp_path, text))
    assert len(lines) == 1
    assert lines[0].startswith(says)


def test_unreadable_files(tmp_path: Path) -> None:
    assert problems(tmp_path / "absent.toml")[0].startswith("cannot read the manifest")
    folder = tmp_path / "folder.toml"
    folder.mkdir()
    assert problems(folder)[0].startswith("cannot read the manifest")
    latin1 = tmp_path / "latin1.toml"
    latin1.write_bytes('[[repos]]\nrepo = "a/b"\nnote = "café"\n'.encode("latin-1"))
    assert problems(latin1)[0].startswith("cannot read the manifest")


def test_several_problems_one_line_each(tmp_path: Path) -> None:
    text = (
        'colour = "blue"\n'
        '[census]\nterms = "nope"\n'
        '[[repos]]\nrepo = "ok/one"\n'
        '[[repos]]\nrepo = "bad"\nwhatever = 1\n'
        f'[[repos]]\nrepo = "ok/two"\ncommit = "{SHA_A[:-1]}"\n'
        '[[repos]]\nref = "main"\n'
        '[[repos]]\nrepo = "OK/One"\n'
    )
    lines = problems(write(tmp_path, text))
    assert len(lines) == 7, lines
    assert lines[0].startswith("unknown top-level key 'colour'")
    joined = "\n".join(lines)
    for expected in (
        "entry 2 (bad): unknown key 'whatever'",
        "entry 2 (bad): repo 'bad' is not of the form",
        "entry 3 (ok/two): commit",
        "entry 4: missing required key 'repo'",
        "entry 5 (OK/One): duplicate repository, already listed as entry 1",
        "[census]: terms: unknown term set 'nope'",
    ):
        assert sum(line.startswith(expected) for line in lines) == 1, (expected, joined)


def test_control_characters_do_not_break_lines(tmp_path: Path) -> None:
    text = '[[repos]]\nrepo = "a/b\\nc\\rd\\u2028e"\nnote = 1\n'
    lines = problems(write(tmp_path, text))  # every line names the file
    assert len(lines) == 2
    assert all(line.startswith("entry 1 (") for line in lines)


# --- write_commits ---------------------------------------------------------------------


def test_write_commits_inserts_after_repo(tmp_path: Path) -> None:
    path = write(tmp_path, VALID)
    manifest.write_commits(path, {1: SHA_A, 3: SHA_C})
    expected = VALID.replace(
        'repo = "octo/widgets"\n', f'repo = "octo/widgets"\ncommit = "{SHA_A}"\n'
    ).replace('repo = "someone/else.js"\n', f'repo = "someone/else.js"\ncommit = "{SHA_C}"\n')
    assert path.read_bytes() == expected.encode()
    assert [e.commit for e in manifest.load(path).repos] == [SHA_A, SHA_B, SHA_C]


def test_write_commits_replaces_an_existing_commit(tmp_path: Path) -> None:
    path = write(tmp_path, VALID)
    manifest.write_commits(path, {2: SHA_C})
    expected = VALID.replace(f'commit = "{SHA_B.upper()}"  # pinned by hand', f'commit = "{SHA_C}"  # pinned by hand')
    assert expected != VALID
    assert path.read_bytes() == expected.encode()
    assert manifest.load(path).repos[1].commit == SHA_C


def test_write_commits_after_repo_that_is_not_first(tmp_path: Path) -> None:
    text = '[[repos]]\nnote = "n"  # c\nrepo = "a/b"   # keep\n\nref = "dev"\n'
    path = write(tmp_path, text)
    manifest.write_commits(path, {1: SHA_A})
    assert path.read_text() == f'[[repos]]\nnote = "n"  # c\nrepo = "a/b"   # keep\ncommit = "{SHA_A}"\n\nref = "dev"\n'


def test_write_commits_keeps_indentation(tmp_path: Path) -> None:
    path = write(tmp_path, '[[repos]]\n  repo = "a/b"\n  ref = "x"\n')
    manifest.write_commits(path, {1: SHA_A})
    assert path.read_text() == f'[[repos]]\n  repo = "a/b"\n  commit = "{SHA_A}"\n  ref = "x"\n'


def test_write_commits_in_inline_tables(tmp_path: Path) -> None:
    path = write(tmp_path, 'repos = [{ repo = "a/b", ref = "x" }, { repo = "c/d" }]  # two\n')
    manifest.write_commits(path, {2: SHA_B})
    assert [e.commit for e in manifest.load(path).repos] == [None, SHA_B]
    text = path.read_text()
    assert text.startswith('repos = [{ repo = "a/b", ref = "x" }, {')
    assert text.endswith("]  # two\n")
    assert text.count("\n") == 1


@pytest.mark.parametrize(("text", "expected"), [
    # a literal string, a quoted key, a comment that names repo: the value is found, not the words
    ("[[repos]]\n\"repo\" = 'a/b'  # repo = \"x/y\"\nnote = 'n'\n",
     "[[repos]]\n\"repo\" = 'a/b'  # repo = \"x/y\"\ncommit = \"{sha}\"\nnote = 'n'\n"),
    # the last line of a file without a final newline
    ('[[repos]]\nnote = "n"\nrepo = "a/b"', '[[repos]]\nnote = "n"\nrepo = "a/b"\ncommit = "{sha}"'),
    # a tab-indented entry whose comment follows the repo line
    ('[[repos]]\n\trepo = "a/b"\n\t# after\n', '[[repos]]\n\trepo = "a/b"\n\tcommit = "{sha}"\n\t# after\n'),
])
def test_write_commits_places_commit_on_the_line_after_repo(tmp_path: Path, text: str, expected: str) -> None:
    path = write(tmp_path, text)
    manifest.write_commits(path, {1: SHA_A})
    assert path.read_text() == expected.format(sha=SHA_A)


def test_write_commits_many_entries_each_after_its_repo(tmp_path: Path) -> None:
    entries = "".join(f'[[repos]]\nrepo = "o/r{n}"  # entry {n}\nnote = "{n}"\n\n' for n in range(1, 6))
    path = write(tmp_path, entries)
    manifest.write_commits(path, {n: f"{n:x}" * 40 for n in (5, 2, 3)})
    lines = path.read_text().splitlines()
    for n in (2, 3, 5):
        assert lines[lines.index(f'repo = "o/r{n}"  # entry {n}') + 1] == f'commit = "{f"{n:x}" * 40}"'
    assert [e.commit for e in manifest.load(path).repos] == [None, "2" * 40, "3" * 40, None, "5" * 40]


def test_write_commits_keeps_crlf_line_ends(tmp_path: Path) -> None:
    crlf = VALID.replace("\n", "\r\n")
    path = write(tmp_path, crlf)
    manifest.write_commits(path, {1: SHA_A})
    expected = crlf.replace('repo = "octo/widgets"\r\n', f'repo = "octo/widgets"\r\ncommit = "{SHA_A}"\r\n')
    assert path.read_bytes() == expected.encode()


def test_write_commits_keeps_mode_and_leaves_no_temporary_file(tmp_path: Path) -> None:
    path = write(tmp_path, VALID)
    path.chmod(0o664)
    manifest.write_commits(path, {1: SHA_A})
    assert stat.S_IMODE(path.stat().st_mode) == 0o664
    assert sorted(os.listdir(path.parent)) == [path.name]


def test_write_commits_non_ascii_text_kept(tmp_path: Path) -> None:
    text = '# Prüfung — ünïcödé\n[[repos]]\nrepo = "a/b"\nnote = "café ☕"\n'
    path = write(tmp_path, text)
    manifest.write_commits(path, {1: SHA_A})
    assert path.read_bytes() == text.replace('"a/b"\n', f'"a/b"\ncommit = "{SHA_A}"\n').encode()


# --- fuzzing: only ManifestError, and every line names the file --------------------------

#: characters that matter to TOML, plus some that should never break a message
TOML_CHARS = '[]{}="\'#.,\\\n\r\t -_/:0123456789abcdefgnrtuxAZ'
#: TOML escapes of characters that must reach neither a message line nor a path
ESCAPES = ["\\u0000", "\\n", "\\r"]
FUZZ_ALPHABET = st.sampled_from([*TOML_CHARS, *ESCAPES, "\x00", "\x7f", "é", "\u2028", '"""', "~"])
fuzz_text = st.lists(FUZZ_ALPHABET, max_size=30).map("".join)


@st.composite
def mutated_manifests(draw: st.DrawFn) -> str:
    text = VALID
    for _ in range(draw(st.integers(min_value=1, max_value=4))):
        at = draw(st.integers(min_value=0, max_value=len(text)))
        op = draw(st.sampled_from(["insert", "delete", "replace"]))
        size = draw(st.integers(min_value=1, max_value=8))
        piece = draw(fuzz_text) if op != "delete" else ""
        text = text[:at] + piece + text[at + (0 if op == "insert" else size) :]
    return text


#: where each quoted value of VALID starts and ends (between the quotes)
VALUE_SPANS = [(i + 1, VALID.index('"', i + 1)) for i in range(len(VALID)) if VALID[i - 2 : i + 1] == '= "']


@st.composite
def mutated_values(draw: st.DrawFn) -> str:
    """VALID with fuzz text inside one or two of its string values (escapes and all)."""
    text = VALID
    for start, end in sorted(draw(st.lists(st.sampled_from(VALUE_SPANS), min_size=1, max_size=2, unique=True)))[::-1]:
        at = draw(st.integers(min_value=start, max_value=end))
        text = text[:at] + draw(fuzz_text) + text[at:]
    return text


def check_load(path: Path, data: bytes) -> None:
    path.write_bytes(data)
    try:
        m = manifest.load(path)
    except ManifestError as exc:
        lines = str(exc).splitlines()
        assert lines
        for line in lines:
            assert line.startswith(f"{path}: "), line
    else:
        assert all(isinstance(e.repo, str) and e.repo for e in m.repos)
        assert m.terms


FUZZ = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@FUZZ
@given(text=mutated_manifests())
def test_mutated_manifests(tmp_path: Path, text: str) -> None:
    check_load(tmp_path / "fuzz.toml", text.encode("utf-8"))


@FUZZ
@given(text=mutated_values())
def test_mutated_values(tmp_path: Path, text: str) -> None:
    check_load(tmp_path / "fuzz.toml", text.encode("utf-8"))


@FUZZ
@given(text=st.text(max_size=200))
def test_random_text(tmp_path: Path, text: str) -> None:
    check_load(tmp_path / "fuzz.toml", text.encode("utf-8", "surrogatepass"))


@FUZZ
@given(data=st.binary(max_size=200))
def test_random_bytes(tmp_path: Path, data: bytes) -> None:
    check_load(tmp_path / "fuzz.toml", data)
