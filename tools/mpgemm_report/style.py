"""How every figure looks: colour-blind-safe colours (Okabe & Ito), one size, a footnote, saving as PNG (Agg)."""
import matplotlib

matplotlib.use("Agg")  # no display: files only
import matplotlib.pyplot as plt  # noqa: E402

# Okabe & Ito, "Color Universal Design" (2008): distinguishable with every common colour-vision deficiency.
BLACK, ORANGE, SKY_BLUE, GREEN, YELLOW, BLUE, VERMILLION, PURPLE = (
    "#000000", "#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7")
GREY = "#7F7F7F"
CYCLE = [BLUE, ORANGE, GREEN, VERMILLION, PURPLE, SKY_BLUE, BLACK, YELLOW]
HEATMAP = "cividis"  # perceptually uniform and made for colour-vision deficiencies

# Outcome colours, one per status, fixed so a status looks the same in every report.
STATUS_COLOURS = {
    "ok": GREEN, "incorrect": VERMILLION, "compile_failed": ORANGE, "resources_exceeded": SKY_BLUE,
    "launch_failed": PURPLE, "runtime_fault": BLACK, "timeout": YELLOW, "constraint_rejected": GREY,
    "screened_out": BLUE,
}
STATUS_ORDER = list(STATUS_COLOURS)

DPI = 110
plt.rcParams.update({
    "figure.dpi": DPI, "savefig.dpi": DPI, "font.size": 9, "axes.titlesize": 10, "axes.labelsize": 9,
    "axes.grid": True, "grid.alpha": 0.3, "axes.axisbelow": True, "axes.prop_cycle": matplotlib.cycler(color=CYCLE),
    "legend.fontsize": 8, "legend.framealpha": 0.9,
})


def figure(width=10.0, height=5.5, **kwargs):
    return plt.subplots(figsize=(width, height), **kwargs)


def footnote(fig, text):
    """Small text along the bottom edge: where the numbers come from."""
    if text:
        fig.text(0.005, 0.005, text, fontsize=7, color="#444444", ha="left", va="bottom", wrap=True)


def save(fig, path, note=None):
    """Writes `fig` as PNG to `path` and closes it. `note`: the footnote (the report's --note among it)."""
    footnote(fig, note)
    fig.savefig(path, format="png", metadata={"Software": None})
    plt.close(fig)


def bar_labels(ax, bars, texts, inside_min=0.0):
    """Text above each bar (inside it when the bar is taller than `inside_min` of the axis height)."""
    top = ax.get_ylim()[1]
    for bar, text in zip(bars, texts):
        h = bar.get_height()
        x = bar.get_x() + bar.get_width() / 2
        if inside_min and h > inside_min * top:
            ax.text(x, h * 0.97, text, ha="center", va="top", fontsize=8, color="white", fontweight="bold")
        else:
            ax.text(x, h + top * 0.01, text, ha="center", va="bottom", fontsize=8)
