// Collects the failed tests out of a TAP stream so the end of a long run names them: a CI log that keeps only its
// tail otherwise shows "# fail 4" with no way to tell which four.
const MAX_LINES = 12;

/** Returns a line sink and a function that prints the failures seen, as TAP comments (harmless to TAP readers). */
export function tapDigest() {
  const failures = [];
  let open = null; // the failure whose YAML block is being read
  const onLine = (line) => {
    const notOk = /^(\s*)not ok \d+ - (.*)$/.exec(line);
    // A `todo` test's failure is expected and does not fail the run (TAP directive `# TODO`).
    if (notOk && !/ # TODO\b/.test(notOk[2])) {
      open = { indent: notOk[1].length, name: notOk[2], details: [], inYaml: false };
      failures.push(open);
      return;
    }
    if (notOk) {
      open = null;
      return;
    }
    if (!open) return;
    const trimmed = line.trim();
    if (trimmed === '---') open.inYaml = true;
    else if (trimmed === '...') open = null;
    else if (open.inYaml && open.details.length < MAX_LINES) open.details.push(trimmed);
  };
  const print = (write) => {
    // A suite fails because a test inside it failed; its own block adds nothing ("N subtests failed").
    const leaves = failures.filter((f) => !f.details.some((d) => /subtests? failed/.test(d)));
    if (leaves.length === 0) return;
    write(`# ---- ${leaves.length} failed test(s) ----\n`);
    for (const f of leaves) {
      write(`# not ok - ${f.name}\n`);
      for (const d of f.details) if (!/^duration_ms|^type:/.test(d)) write(`#     ${d}\n`);
    }
  };
  return { onLine, print };
}
