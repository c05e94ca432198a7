// Rating history chart (uPlot): one line per bot, rated matches played on x (0 = the initial rating), the
// rating (mu - 3 sigma) on y, with a legend instead of labels written at the lines' ends (which overlapped).
// Reads its data from <script id="rating-chart-data">.
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
      scales: {x: {time: false}},
      axes: [
        // Whole numbers only: a bot plays no half matches.
        {label: "rated matches played", stroke: "#5f6b7a", grid: {stroke: "#eee"},
         incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000], values: (u, ticks) => ticks.map((t) => String(t))},
        {label: "Rating (mu - 3 sigma)", stroke: "#5f6b7a", grid: {stroke: "#eee"}, size: 60},
      ],
      series: [
        {label: "matches", value: (u, v) => (v == null ? "–" : String(v))},
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
