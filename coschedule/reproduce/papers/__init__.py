"""One module per paper, each defining ``PAPER`` (:class:`coschedule.reproduce.paper.Paper`);
:mod:`coschedule.reproduce.registry` discovers them."""
