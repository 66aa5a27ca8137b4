/* rcsim report: draws the charts of report.html with Chart.js (inlined before this
   script from Debian's libjs-chart.js) and makes the results table sortable and
   filterable.  The data come from <script id="report-data" type="application/json">,
   written by analysis/rcplot/interactive.py.  Marks for the end-to-end test: every canvas
   gets data-drawn after its first render, <html> gets data-charts when all are drawn. */
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("report-data").textContent);

  function fmt(v) {
    if (v === null || v === undefined || !isFinite(v)) return "n/a";
    var a = Math.abs(v);
    if (a !== 0 && (a >= 1e5 || a < 1e-3)) return v.toExponential(2);
    return Number(v.toPrecision(3)).toString();
  }

  // Vertical bars from each point's lo to hi (the interval over seeds): Chart.js has no
  // error bars of its own.  Hidden series (legend toggles) draw none.
  var errorBars = {
    id: "errorBars",
    afterDatasetsDraw: function (chart) {
      var y = chart.scales.y, ctx = chart.ctx, area = chart.chartArea;
      chart.data.datasets.forEach(function (ds, i) {
        if (!chart.isDatasetVisible(i)) return;
        var meta = chart.getDatasetMeta(i);
        ctx.save();
        // An interval reaching past the axis range is cut at the plot's edge.
        ctx.beginPath();
        ctx.rect(area.left, area.top, area.right - area.left, area.bottom - area.top);
        ctx.clip();
        ctx.strokeStyle = ds.borderColor;
        ctx.lineWidth = 1;
        meta.data.forEach(function (pt, j) {
          var d = ds.data[j];
          if (!d || d.lo === null || d.lo === undefined || d.hi === null) return;
          // A log axis has no place for a bound at or below zero: clip at its bottom.
          var lo = (y.type === "logarithmic" && d.lo <= 0) ? y.min : d.lo;
          var y1 = y.getPixelForValue(lo), y2 = y.getPixelForValue(d.hi);
          var col = ds.pointBorderColor;
          ctx.strokeStyle = Array.isArray(col) ? col[j] : ds.borderColor;
          ctx.beginPath();
          ctx.moveTo(pt.x, y1); ctx.lineTo(pt.x, y2);
          ctx.moveTo(pt.x - 3, y1); ctx.lineTo(pt.x + 3, y1);
          ctx.moveTo(pt.x - 3, y2); ctx.lineTo(pt.x + 3, y2);
          ctx.stroke();
        });
        ctx.restore();
      });
    }
  };

  var drawn = 0;
  var marker = {
    id: "drawnMark",
    afterRender: function (chart) {
      var c = chart.canvas;
      if (c.hasAttribute("data-drawn")) return;
      c.setAttribute("data-drawn", String(chart.data.datasets.length));
      drawn += 1;
      if (drawn === data.charts.length) {
        document.documentElement.setAttribute("data-charts", String(drawn));
      }
    }
  };

  function axis(spec, title) {
    var a = { type: spec.type, title: { display: true, text: title } };
    // Categories sit in the middle of their slots, not on the plot's edges.
    if (spec.type === "category") { a.labels = spec.labels; a.offset = true; }
    if (spec.min !== undefined) a.min = spec.min;
    if (spec.max !== undefined) a.max = spec.max;
    if (spec.suggestedMin !== undefined) a.suggestedMin = spec.suggestedMin;
    if (spec.suggestedMax !== undefined) a.suggestedMax = spec.suggestedMax;
    if (spec.type === "logarithmic") {
      // Label 1, 2 and 5 of each decade only; Chart.js labels every tick otherwise.
      a.ticks = { callback: function (v) {
        var m = v / Math.pow(10, Math.floor(Math.log10(v) + 1e-9));
        return [1, 2, 5].some(function (k) { return Math.abs(m - k) < 1e-6; }) ? fmt(v) : "";
      } };
    }
    return a;
  }

  data.charts.forEach(function (c) {
    var canvas = document.getElementById("chart-" + c.id);
    var datasets = c.series.map(function (s) {
      return {
        label: s.label, data: s.points, borderColor: s.color, backgroundColor: s.color,
        borderDash: s.dash, pointStyle: s.marker, pointRadius: c.points ? (c.lines ? 3 : 5) : 0,
        pointHoverRadius: 6, borderWidth: 1.6, stepped: c.stepped ? "after" : false,
        spanGaps: false, unit: c.unit, showLine: c.lines,
        pointBackgroundColor: s.point_colors || s.color, pointBorderColor: s.point_colors || s.color
      };
    });
    new Chart(canvas, {
      type: "line",
      data: { datasets: datasets },
      plugins: [errorBars, marker],
      options: {
        animation: false, responsive: true, maintainAspectRatio: false,
        parsing: { xAxisKey: "x", yAxisKey: "y" },
        interaction: { mode: "nearest", intersect: false, axis: c.stepped ? "x" : "xy" },
        scales: { x: axis(c.x, c.xlabel), y: axis(c.y, c.ylabel) },
        plugins: {
          legend: { position: c.legend || "bottom", labels: { boxWidth: 18, usePointStyle: false } },
          tooltip: { callbacks: {
            title: function (items) {
              return items.length ? c.xlabel + ": " + (c.x.type === "category" ?
                items[0].raw.x : fmt(items[0].raw.x)) : "";
            },
            label: function (it) {
              var d = it.raw, t = it.dataset.label + ": " + fmt(d.y) + (c.unit ? " " + c.unit : "");
              var seeds = d.n === undefined ? "" : d.n + (d.n === 1 ? " seed" : " seeds");
              if (d.lo !== undefined && d.lo !== null && d.how === "seed range") {
                // too few seeds for an interval: the min-max over seeds, as in the table
                t += " (range " + fmt(d.lo) + "\u2013" + fmt(d.hi) + (seeds ? ", " + seeds : "") + ")";
              } else {
                if (d.lo !== undefined && d.lo !== null) t += " [" + fmt(d.lo) + ", " + fmt(d.hi) + "]";
                if (seeds) t += " (" + seeds + ")";
              }
              return t;
            }
          } }
        }
      }
    });
  });

  // The table: click a heading to sort (numbers by value, again to reverse); type in the
  // box to keep the rows holding every word typed.
  var table = document.getElementById("results");
  var body = table.tBodies[0];
  var rows = Array.prototype.slice.call(body.rows);
  var count = document.getElementById("row-count");
  Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, col) {
    th.addEventListener("click", function () {
      var dir = th.getAttribute("aria-sort") === "ascending" ? -1 : 1;
      Array.prototype.forEach.call(table.tHead.rows[0].cells, function (h) {
        h.removeAttribute("aria-sort");
      });
      th.setAttribute("aria-sort", dir === 1 ? "ascending" : "descending");
      rows.sort(function (a, b) {
        var x = a.cells[col], y = b.cells[col];
        var vx = parseFloat(x.getAttribute("data-v")), vy = parseFloat(y.getAttribute("data-v"));
        if (!isNaN(vx) && !isNaN(vy) && vx !== vy) return dir * (vx - vy);
        if (isNaN(vx) !== isNaN(vy)) return isNaN(vx) ? 1 : -1;
        return dir * x.textContent.localeCompare(y.textContent, undefined, { numeric: true });
      });
      rows.forEach(function (r) { body.appendChild(r); });
    });
  });
  var filter = document.getElementById("filter");
  function apply() {
    var words = filter.value.toLowerCase().split(/\s+/).filter(Boolean), shown = 0;
    rows.forEach(function (r) {
      var t = r.textContent.toLowerCase();
      var ok = words.every(function (w) { return t.indexOf(w) >= 0; });
      r.style.display = ok ? "" : "none";
      shown += ok ? 1 : 0;
    });
    count.textContent = shown + " of " + rows.length + " rows";
  }
  filter.addEventListener("input", apply);
  apply();
})();
