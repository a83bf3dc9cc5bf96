"""Bad input: one clear error line, exit status 2, and no profile or data file left behind."""

import subprocess

import pytest

pytestmark = pytest.mark.kernel

GARBLED = "LAMMPS data file\n\n2 atoms\n1 atom types\n0 4 xlo xhi\n0 4 ylo yhi\n0 4 zlo zhi\n\nAtoms\n\n1 1 0.5 x 0.5\n"


def error_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("hybridperf-md: error:")]


def test_bad_input_with_several_ranks_reports_once(run_md):
    for args, message in [(["--grid", "3", "1", "1"], "--grid 3 1 1 needs 3 ranks, got 2"),
                          (["-s", "2"], "-s 4 or more for a 2 x 1 x 1 grid")]:
        run = run_md(2, 1, args)
        assert run.returncode == 2
        lines = error_lines(run.stderr)
        assert len(lines) == 1 and message in lines[0], run.stderr
        assert run.profile is None and not run.profile_path.exists()


@pytest.mark.parametrize(
    "content,message",
    [
        (GARBLED, "line 11: expected 'id type x y z"),
        (GARBLED.replace("2 atoms", "many atoms"), "no 'N atoms' line"),
        (GARBLED.replace("1 atom types", "2 atom types").replace("1 1 0.5 x 0.5", "1 1 0.5 0.5 0.5\n2 2 1.5 1.5 1.5"),
         "Lennard-Jones runs in reduced units with one atom type"),
        (GARBLED.replace("0 4 zlo zhi", "0 4 zlo zhi\n0 0 0 xy xz yz"), "triclinic"),
        (GARBLED.replace("1 1 0.5 x 0.5", "1 1 0.5 0.5 0.5\n1 1 1.5 1.5 1.5"), "not unique"),
        (GARBLED.replace("1 1 0.5 x 0.5", "1 1 0.5 0.5 0.5"), "file ends inside a section"),
        (GARBLED.replace("Atoms\n", "Bonds\n"), "unexpected 'Bonds'"),
        ("", "empty file"),
    ],
    ids=["garbled", "no-count", "types", "triclinic", "duplicate", "truncated", "bonds", "empty"],
)
def test_garbled_data_files(md_binary, tmp_path, content, message):
    data = tmp_path / "in.data"
    data.write_text(content)
    prof = tmp_path / "p.json"
    proc = subprocess.run([str(md_binary), "--read-data", str(data), "--profile", str(prof)],
                          capture_output=True, text=True)
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and message in proc.stderr, proc.stderr
    assert not prof.exists()


def test_data_file_and_lattice_options_conflict(md_binary, tmp_path):
    proc = subprocess.run([str(md_binary), "--read-data", "x.data", "-s", "5"], capture_output=True, text=True)
    assert proc.returncode == 2 and "--size and --read-data both given" in proc.stderr


def test_help_and_version(md_binary):
    help_text = subprocess.run([str(md_binary), "--help"], capture_output=True, text=True, check=True).stdout
    for option in ("--size", "--steps", "--potential", "--grid", "--read-data", "--write-data", "--profile"):
        assert option in help_text
    assert "[default: 0.8442]" in help_text
    version = subprocess.run([str(md_binary), "--version"], capture_output=True, text=True, check=True).stdout
    assert version.startswith("hybridperf-md ")
