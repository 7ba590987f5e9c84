"""The figures ``coschedule report --figure`` draws of a torus campaign (:func:`.report.torus_figure`),
by name, with what each shows and the figure of [Oliner2004] it redraws: a module of its own, which
the command line reads to build its help without importing the simulator."""

__all__ = ["FIGURES"]

#: figure name -> (what it shows, the paper's figure)
FIGURES: dict[str, tuple[str, str]] = {
    "slowdown-failures": ("mean bounded slowdown vs the failure count, a line per scheduler and load scale",
                          "Figs. 3-4"),
    "utilization-failures": (("capacity utilized / unused / lost vs the failure count, a panel per scheduler "
                              "and load scale"), "Fig. 5"),
    "slowdown-confidence": ("balancing's mean bounded slowdown vs its confidence, a line per load scale", "Fig. 6"),
    "utilization-confidence": ("capacity vs balancing's confidence, a panel per load scale", "Figs. 7-8"),
    "slowdown-accuracy": ("tie-breaking's mean bounded slowdown vs its accuracy, a line per load scale", "Fig. 9"),
    "utilization-accuracy": ("capacity vs tie-breaking's accuracy, a panel per load scale", "Fig. 10"),
}
