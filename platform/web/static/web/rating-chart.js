// Rating history chart (uPlot): one line per bot, time on x, Elo on y, with a legend instead of labels
// written at the lines' ends (which overlapped). Reads its data from <script id="rating-chart-data">.
(() => {
  const source = document.getElementById("rating-chart-data");
  const target = document.getElementById("rating-chart");
  if (!source || !target || !window.uPlot) return;
  const data = JSON.parse(source.textContent);
  const colours = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22"];

  function options(width) {
    return {
      width,
      height: Math.max(220, Math.min(360, Math.round(width * 0.45))),
      // One moment only (a single rated match): an hour either side, not uPlot's default of years.
      scales: {x: {time: true, range: (u, min, max) => (min === max ? [min - 3600, max + 3600] : [min, max])}},
      axes: [
        {label: "when the rated match finished", stroke: "#5f6b7a", grid: {stroke: "#eee"}},
        {label: "Elo rating", stroke: "#5f6b7a", grid: {stroke: "#eee"}, size: 60},
      ],
      series: [
        {label: "time"},
        ...data.series.map((line, index) => ({
          label: line.label,
          stroke: colours[index % colours.length],
          width: 2,
          spanGaps: true,
          points: {size: 6},
          value: (u, v) => (v == null ? "–" : v.toFixed(0)),
        })),
      ],
    };
  }

  const aligned = [data.x, ...data.series.map((line) => line.values)];
  const chart = new uPlot(options(target.clientWidth), aligned, target);
  // Follow the container's width (a phone turned sideways, a window resized).
  new ResizeObserver(() => {
    if (Math.abs(chart.width - target.clientWidth) > 2) {
      chart.setSize({width: target.clientWidth, height: options(target.clientWidth).height});
    }
  }).observe(target);
})();
