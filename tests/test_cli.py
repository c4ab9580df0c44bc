"""The console scripts: what a newcomer types first."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from wia_hal.cli import main as wia_main
from wia_sim.cli import main as sim_main
from wia_sim.hwmodel import available_models


@pytest.fixture(autouse=True)
def wide_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tables as a 200-column terminal shows them (rich wraps cells at its default 80)."""
    monkeypatch.setenv("COLUMNS", "200")


def test_wia_devices_lists_every_device_with_info_and_capabilities(capsys: pytest.CaptureFixture[str]) -> None:
    assert wia_main(["--option", "hardware=wia-tiny", "--option", "devices=2", "devices"]) == 0
    out = capsys.readouterr().out
    assert "device 0" in out and "device 1" in out
    for field in ("WIA Tiny", "compute units", "memory bandwidth", "peak FP32", "supports bfloat16", "max streams"):
        assert field in out


def test_wia_reports_an_unknown_model(capsys: pytest.CaptureFixture[str]) -> None:
    assert wia_main(["--option", "hardware=no-such-chip", "devices"]) == 1
    assert "INVALID_VALUE" in capsys.readouterr().out


def test_wia_sim_models_lists_every_shipped_model(capsys: pytest.CaptureFixture[str]) -> None:
    assert sim_main(["models"]) == 0
    out = capsys.readouterr().out
    for name in available_models():
        assert name in out


def test_wia_sim_models_show_prints_every_section(capsys: pytest.CaptureFixture[str]) -> None:
    assert sim_main(["models", "show", "nvidia-h100-sxm5-80gb"]) == 0
    out = capsys.readouterr().out
    for field in ("compute.compute_units", "memory.bandwidth", "host_link.pinned_h2d_bandwidth", "efficiency.matmul"):
        assert field in out


def test_wia_sim_models_check_names_the_bad_field(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('schema_version = 1\nname = "bad"\n')
    assert sim_main(["models", "check", str(bad)]) == 1
    out = capsys.readouterr().out
    assert str(bad.name) in out and "compute: required field is missing" in out


@pytest.mark.parametrize(
    "argv",
    [
        ["explain", "matmul", "1024", "2048", "512", "--hardware", "wia-tiny", "--arithmetic", "float16"],
        ["explain", "conv2d", "8", "16", "32", "32", "32", "3", "3", "--padding", "1", "--hardware", "wia-tiny"],
    ],
)
def test_wia_sim_explain_marks_the_algorithm_auto_picks(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert sim_main(argv) == 0
    assert "← AUTO" in capsys.readouterr().out


def test_wia_sim_explain_refuses_an_arithmetic_the_model_lacks(capsys: pytest.CaptureFixture[str]) -> None:
    assert sim_main(["explain", "matmul", "64", "64", "64", "--hardware", "nvidia-v100-sxm2-32gb"]) == 1
    assert "no bfloat16" in capsys.readouterr().out


CORPUS = Path(__file__).parent / "kernels"
SAXPY = """__kernel void saxpy(__global const float* x, __global float* y, const float a, const int n) {
    const int i = get_global_id(0);
    if (i < n) y[i] = a * x[i] + y[i];
}
"""


def test_wia_sim_kernel_prints_the_counts_and_the_time_on_each_model(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "saxpy.cl"
    path.write_text(SAXPY)
    argv = ["kernel", str(path), "saxpy", "1000", "1000", "2.5", "1000", "--global", "1024", "--local", "128"]
    assert sim_main([*argv, "--hardware", "wia-tiny", "--hardware", "nvidia-h100-sxm5-80gb"]) == 0
    out = capsys.readouterr().out
    assert "local (128, 1, 1), 8 work-groups; checks on, no findings" in out
    # captured output is not a terminal: ASCII borders
    rows = {line.split("|")[1].strip(): line.split("|")[2].strip() for line in out.splitlines() if line.count("|") == 3}
    # x and y read and y written by the 1000 work-items inside the bound; one multiply and one add each
    assert (rows["global bytes read"], rows["global bytes written"], rows["float32 ops"]) == ("8,000", "4,000", "2,000")
    assert "WIA Tiny" in out and "NVIDIA H100" in out


def test_wia_sim_kernel_finds_headers_beside_the_file_and_in_dash_i(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "inc dir").mkdir()
    (tmp_path / "inc dir" / "scale.h").write_text("#define SCALE 2.0f\n")
    (tmp_path / "guard.h").write_text("#define IN_BOUNDS(i, n) ((i) < (n))\n")
    path = tmp_path / "scale.cl"
    path.write_text(
        '#include "guard.h"\n#include <scale.h>\n'
        "__kernel void scale(__global float* x, int n) {\n"
        "    int i = get_global_id(0);\n    if (IN_BOUNDS(i, n)) x[i] *= SCALE;\n}\n"
    )
    argv = ["kernel", str(path), "scale", "100", "100", "--global", "128", "--local", "64", "--hardware", "wia-tiny"]
    assert sim_main([*argv, "-I", str(tmp_path / "inc dir")]) == 0
    assert "float32 ops" in capsys.readouterr().out
    assert sim_main(argv) == 1  # <scale.h> is not searched for beside the file
    assert "'scale.h' file not found" in capsys.readouterr().out


def test_wia_sim_kernel_reports_a_finding_and_bad_arguments(capsys: pytest.CaptureFixture[str]) -> None:
    bug = str(CORPUS / "bugs" / "oob_global_write.cl")
    assert sim_main(["kernel", bug, "fill_ramp", "60", "0.5", "60", "--global", "64", "--local", "32"]) == 1
    out = capsys.readouterr().out
    assert "check out_of_bounds_global failed: oob_global_write.cl:10:" in out and "(60, 0, 0)" in out
    assert sim_main(["kernel", bug, "fill_ramp", "60", "--global", "64"]) == 2  # a usage error, as argparse's
    assert "takes 3 arguments: y (element count), delta (float), n (int); got 1" in capsys.readouterr().out
    assert sim_main(["kernel", bug, "fill_ramp", "60", "x", "60", "--global", "64"]) == 2
    assert "argument 'delta': it is a float: 'x' is not one" in capsys.readouterr().out
    assert sim_main(["kernel", bug, "fill_ramp", "60", "1", "60", "--global", "64", "--local", "24"]) == 2
    assert "not a multiple of local size" in capsys.readouterr().out
    runaway = str(CORPUS / "bugs" / "runaway_loop.cl")
    assert sim_main(["kernel", runaway, "count_bits", "8", "8", "8", "--global", "8", "--step-limit", "500"]) == 1
    assert (
        "runaway_loop.cl:12: kernel 'count_bits' exceeded its step limit of 500 lockstep steps"
        in capsys.readouterr().out
    )


def test_wia_sim_kernel_takes_a_global_offset(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "offset.cl"  # a finding unless the launch starts at global id 5
    path.write_text(
        "__kernel void k(__global int* out) {\n"
        "    const int first = get_global_id(0) == get_global_offset(0) + get_local_id(0);\n"
        "    out[first && get_global_offset(0) == 5 ? 0 : 99] = 1;\n"
        "}\n"
    )
    argv = ["kernel", str(path), "k", "8", "--global", "4", "--local", "4"]
    assert sim_main([*argv, "--offset", "5"]) == 0
    assert "global (4, 1, 1), local (4, 1, 1), offset (5, 0, 0), 1 work-groups" in capsys.readouterr().out
    assert sim_main(argv) == 1
    assert "out-of-bounds write" in capsys.readouterr().out
    with pytest.raises(SystemExit) as exit:
        sim_main([*argv, "--offset", "-1"])
    assert exit.value.code == 2 and "argument --offset: '-1' is negative" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit:  # an offset in a dimension the launch does not have
        sim_main([*argv, "--offset", "5,3"])
    err = capsys.readouterr().err
    assert exit.value.code == 2 and "argument --offset: '5,3' has 2 offsets; the launch has 1 dimension" in err


def test_wia_sim_kernel_fuses_with_fp_contract(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """(1 + 2**-13)(1 - 2**-13) - 1 is -2**-26 rounded once; rounded twice, the product is 1.0 and the sum 0."""
    path = tmp_path / "fma.cl"
    path.write_text(
        "__kernel void k(__global float* x) {\n"
        "    float a = 1.0001220703125f, b = 0.9998779296875f, c = -1.0f;\n"
        '    printf("%a\\n", a * b + c);\n'
        "}\n"
    )
    argv = ["kernel", str(path), "k", "1", "--global", "1"]
    assert sim_main([*argv, "--fp-contract"]) == 0
    out = capsys.readouterr().out
    assert "-0x1p-26" in out and "checks on, no findings; a*b+c fused" in out
    assert sim_main(argv) == 0
    assert "0x0p+0" in capsys.readouterr().out


def test_kernel_arguments_follow_the_signature() -> None:
    from wia_sim.kernel_run import kernel_arguments
    from wia_sim.kernels import compile_source

    info = compile_source(
        "__kernel void k(__global int4* a, __local float* t, const float2 s, const uint n) {}"
    ).kernel("k")
    a, t, s, n = kernel_arguments(info, ["3", "64", "1.5,-2", "7"], "index", seed=1)
    assert a.view(np.int32).tolist() == list(range(12)) and t == 64 and n == 7
    assert s.dtype == np.float32 and s.tolist() == [1.5, -2.0]
    random = kernel_arguments(info, ["1000", "0", "0,0", "0"], "random", seed=1)[0].view(np.int32)
    assert random.min() >= 0 and random.max() < 100 and len(set(random.tolist())) > 50
    with pytest.raises(ValueError, match="'a' takes a whole number"):
        kernel_arguments(info, ["x", "64", "1,2", "7"], "zeros", seed=1)


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["explain", "matmul", "1024", "-5", "1024"], "argument N: '-5' is negative; expected a size ≥ 0"),
        (["explain", "matmul", "64", "64", "x"], "argument K: 'x' is not a whole number; expected a size ≥ 0"),
        (["explain", "matmul", "64", "64"], "matmul takes M N K: 3 sizes, got 2"),
        (["explain", "conv2d", "1", "3", "8", "8", "-4", "3", "3"], "argument O: '-4' is negative"),
        (["explain", "conv2d", "1", "3", "8", "8", "4", "3", "3", "--stride", "0"], "argument --stride: '0' is too"),
        (
            ["explain", "conv2d", "1", "3", "8", "8", "4", "3", "3", "--padding", "-1"],
            "argument --padding: '-1' is neg",
        ),
        (["explain", "conv2d", "1", "3", "4", "4", "4", "7", "7"], "a 7×7 window does not fit the 4×4 input"),
        (
            ["kernel", "k.cl", "k", "--global", "-64"],
            "argument --global: '-64' is negative; expected a whole number ≥ 1",
        ),
        (["kernel", "k.cl", "k", "--global", "64", "--local", "0"], "argument --local: '0' is too small"),
        (["kernel", "k.cl", "k", "--global", "1,2,3,4"], "argument --global: '1,2,3,4' has 4 sizes"),
        (["kernel", "k.cl", "k", "--global", "64", "--step-limit", "-1"], "argument --step-limit: '-1' is negative"),
        (["kernel", "k.cl", "k", "--global", "64", "--seed", "-3"], "argument --seed: '-3' is negative"),
        (["models", "cpu", "--repeats", "0"], "argument --repeats: '0' is too small; expected a whole number ≥ 1"),
    ],
)
def test_wia_sim_refuses_a_bad_size_as_a_usage_error(
    argv: list[str], says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit:
        sim_main(argv)
    assert exit.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("wia-sim ") and says in err[-1], err


def test_wia_sim_explains_a_zero_size_as_launch_only(capsys: pytest.CaptureFixture[str]) -> None:
    assert sim_main(["explain", "matmul", "0", "64", "64", "--hardware", "wia-tiny"]) == 0
    out = capsys.readouterr().out
    rows = [[c.strip() for c in line.split("|")[1:-1]] for line in out.splitlines() if line.startswith("| ")][1:]
    assert "matmul 0×64×64" in out and "← AUTO" in out and rows
    for row in rows:  # no FLOPs: no rate, and never a negative figure
        assert row[8] == "0.0" and not any(cell.startswith("-") for cell in row), row


def test_wia_sim_kernel_names_a_kernel_it_cannot_run_and_exits_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A program with an image kernel builds; that kernel is refused by name, the other one runs."""
    path = tmp_path / "both.cl"
    path.write_text(
        "__kernel void img(read_only image2d_t im, __global float4* o) { o[0] = read_imagef(im, (int2)(0)); }\n"
        "__kernel void plain(__global float* o) { o[get_global_id(0)] = 2.0f; }\n"
    )
    assert sim_main(["kernel", str(path), "img", "1", "4", "--global", "4"]) == 1
    assert "kernel 'img': images and samplers are not supported by the simulator" in capsys.readouterr().out
    assert sim_main(["kernel", str(path), "plain", "4", "--global", "4"]) == 0


def test_wia_sim_kernel_prints_a_uniform_write_and_exits_0(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A lower-severity finding does not stop the kernel: it is printed and the run goes on (issue 16)."""
    path = tmp_path / "flag.cl"
    path.write_text("__kernel void flag(__global int* seen) {\n    seen[0] = 1;\n}\n")
    assert sim_main(["kernel", str(path), "flag", "1", "--global", "64", "--local", "32"]) == 0
    out = capsys.readouterr().out
    assert "2 work-groups; checks on, 1 finding" in out
    assert "flag.cl:2: uniform write: write of __global buffer (argument 'seen') at offset 0" in out
