"""The roofline's ceilings per device: datasheet numbers, one row per device name as CUDA reports it.

peak_tflops: dense FP16 Tensor Core throughput with FP32 accumulate (the GEMM mpgemm measures), no sparsity.
bandwidth_tbps: device memory bandwidth, TB/s (10^12 bytes/s).
capped_tflops: the tensor peak at the SM clock the card holds under sustained GEMM load (its power cap), when
    measured; None otherwise. It is the ceiling kernels actually meet.
The measured ceiling (the fastest cuBLAS / cuBLASLt timing) is drawn beside these, from the database.
"""
from dataclasses import dataclass


@dataclass(frozen=True)
class Ceilings:
    peak_tflops: float
    bandwidth_tbps: float
    source: str
    capped_tflops: float | None = None
    capped_source: str = ""


_H100_H200_PEAK = 989.4  # FP16/BF16 Tensor Core dense, SXM5, 1.83 GHz boost (H100 and H200 datasheets)

DEVICES = {
    "NVIDIA H200": Ceilings(_H100_H200_PEAK, 4.8, "NVIDIA H200 datasheet (SXM): 989 TFLOP/s FP16 Tensor Core "
                                                  "dense, 4.8 TB/s HBM3e",
                            # 132 SMs x 4096 FLOP/clock x 1.41 GHz: nvidia-smi read 1410-1425 MHz with reason
                            # 0x4 (software power cap) during GEMM batches (results/h200/hopper/levers/paired).
                            132 * 4096 * 1.41e9 / 1e12,
                            "power-capped peak: the H200 holds 1.41 GHz under GEMM load (nvidia-smi, 2026-11-30)"),
    "NVIDIA H100 80GB HBM3": Ceilings(_H100_H200_PEAK, 3.35, "NVIDIA H100 datasheet (SXM): 989 TFLOP/s FP16 "
                                                              "Tensor Core dense, 3.35 TB/s HBM3"),
}


def lookup(device):
    """The datasheet ceilings of `device`, or None when the table has no row for it."""
    return DEVICES.get(device)
