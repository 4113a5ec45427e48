"""``declares.names``: the functions a file declares, read from its text; the fast paths (hyperscan
for TypeScript's line forms, a keyword search for ``def``/``func``/``fn``) give what the regexes give."""

from __future__ import annotations

import pytest

from pipeline.scan.effects import declares

SOURCES = {
    "typescript": b"""export const dropNote: ToolCallback<{ params: typeof schema }> = async (args) => {
  return args;
};
export async function listNotes(folder: string) { return folder; }
class Store {
  private async remove(
    path: string,
    force = false,
  ): Promise<void> {
    if (force) { await fs.rm(path); }
  }
  read = (path: string) => fs.readFile(path);
}
const table = {
  tidy: async () => 1,
  keep: function () { return 2; },
};
const inline = { skipped: async () => 1 };
const generic = async <T>(value: T): Promise<T> => value;
""",
    "python": b"def tidy(folder):\n    return undef_value\n\nclass Store:\n    async def remove(self, path):\n"
              b"        pass\n\nx = 'def not_a_function'\n",
    "go": b"package main\n\nfunc (s *Store) Remove(path string) error {\n\treturn nil\n}\n\nfunc tidy() {}\n"
          b"var f = func() {}\n",
    "rust": b"pub struct Store;\nimpl Store {\n    pub async fn remove(&self) {}\n"
            b"    pub(crate) const fn size() -> u8 { 1 }\n}\nfn main() { let notfn = 1; }\n",
}
EXPECTED = {
    "typescript": {"dropNote", "listNotes", "remove", "read", "tidy", "keep", "generic", "if"},
    "python": {"tidy", "remove"},
    "go": {"Remove", "tidy"},
    "rust": {"remove", "size", "main"},
}


@pytest.mark.parametrize("language", sorted(SOURCES))
def test_the_names_a_file_declares(language: str) -> None:
    found = declares.names(language, SOURCES[language])
    assert found == EXPECTED[language]
    by_regex = {m.group(1).decode() for pattern in declares.DECLARES[language] for m in pattern.finditer(
        SOURCES[language])}
    assert found == by_regex


def test_a_declaration_whose_parameters_span_lines_is_found_from_its_first_line() -> None:
    text = b"\n".join([b"class A {", b"  handle(", *[b"    a%d: string," % i for i in range(20)], b"  ) {", b"  }",
                       b"}"])
    assert declares.names("typescript", text) == {"handle"}
