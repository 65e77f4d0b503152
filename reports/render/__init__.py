"""The renderings of the reports' models, one module per medium: Markdown (``md``, the whole report, fit
for a pull-request comment), HTML (``html``, self-contained, with the plots of ``svg``), JSON (``json``,
versioned), JUnit XML (``junit``), the short terminal view (``terminal``), and both media of a history
(``history``). A renderer reads a model (``reports.summary``, ``reports.verdict``, ``reports.history``)
and decides nothing: every figure and verdict it shows was decided there."""
