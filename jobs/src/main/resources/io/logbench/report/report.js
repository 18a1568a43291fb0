// Draws a logbench report from the JSON in #report-data: sections of blocks (heading, paragraph,
// notice, table, chart, pre). It knows block types, not sections, so a new section needs no
// change here. Text goes in with textContent only, never as HTML.
//
// After drawing, document.body.dataset.charts holds, per chart id, the points of each series
// that uPlot drew ({"id": {"series": {"label": {"points": n, "drawn": true}}}}), and
// document.body.dataset.rendered is "true": tests and tools read them.
(function () {
  'use strict';

  var data = JSON.parse(document.getElementById('report-data').textContent);
  var body = document.body;
  var number = new Intl.NumberFormat('en-US', { maximumFractionDigits: 3 });
  var zone = data.zone || 'UTC';
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
  } catch (e) {
    zone = 'UTC';
  }
  var charts = [];
  var drawn = {};

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) {
      e.className = cls;
    }
    if (text != null) {
      e.textContent = String(text);
    }
    return e;
  }

  function statusClass(v) {
    var first = String(v == null ? '' : v).split(/[\s:,]/)[0];
    return 'status status-' + first.replace(/[^A-Za-z0-9_-]/g, '');
  }

  function cellText(v, kind) {
    if (v == null) {
      return '';
    }
    if (kind === 'number' && typeof v === 'number') {
      return number.format(v);
    }
    return String(v);
  }

  function table(b) {
    var wrap = el('div', 'table-wrap');
    var t = el('table', 'report-table');
    if (b.id) {
      t.id = b.id;
    }
    if (b.caption) {
      t.appendChild(el('caption', null, b.caption));
    }
    var head = el('thead');
    var hr = el('tr');
    b.columns.forEach(function (c) {
      hr.appendChild(el('th', c.kind === 'number' ? 'number' : null, c.name));
    });
    head.appendChild(hr);
    t.appendChild(head);
    var tb = el('tbody');
    b.rows.forEach(function (row) {
      var tr = el('tr');
      row.forEach(function (v, i) {
        var kind = (b.columns[i] || {}).kind;
        var td = el('td', kind === 'number' ? 'number' : null);
        if (kind === 'status') {
          td.appendChild(el('span', statusClass(v), cellText(v, kind)));
        } else {
          td.textContent = cellText(v, kind);
          if (td.textContent.length > 32) {
            td.className = 'long';
          }
        }
        tr.appendChild(td);
      });
      tb.appendChild(tr);
    });
    t.appendChild(tb);
    wrap.appendChild(t);
    var out = document.createDocumentFragment();
    out.appendChild(wrap);
    if (b.note) {
      out.appendChild(el('div', 'table-note', b.note));
    }
    return out;
  }

  function pre(b) {
    var d = el('details', 'pre');
    d.open = true;
    d.appendChild(el('summary', null, b.caption || 'text'));
    d.appendChild(el('pre', null, b.text));
    return d;
  }

  function chartBox(b) {
    var out = el('div', 'chart-block');
    if (b.title) {
      out.appendChild(el('div', 'chart-title', b.title));
    }
    var box = el('div', 'chart');
    box.id = 'chart-' + b.id;
    out.appendChild(box);
    if (b.note) {
      out.appendChild(el('div', 'chart-note', b.note));
    }
    charts.push({ box: box, spec: b });
    return out;
  }

  function block(b) {
    switch (b.type) {
      case 'heading':
        return el('h3', 'block-heading', b.text);
      case 'paragraph':
        return el('p', 'paragraph', b.text);
      case 'notice':
        return el('div', 'notice ' + b.level, b.text);
      case 'table':
        return table(b);
      case 'chart':
        return chartBox(b);
      case 'pre':
        return pre(b);
      default:
        return el('div', 'notice warn', 'This report holds a block of type ' + b.type
            + ' that this page cannot show.');
    }
  }

  // Time ticks as ISO-like 24-hour times, the date under the first tick of a day (uPlot's
  // format table: increment, default, then the formats used when the year, month, day, hour,
  // minute or second changes)
  var TIME_TICKS = [
    [3600 * 24 * 365, '{YYYY}', null, null, null, null, null, null, 1],
    [3600 * 24 * 28, '{YYYY}-{MM}', '\n{YYYY}', null, null, null, null, null, 1],
    [3600 * 24, '{MM}-{DD}', '\n{YYYY}', null, null, null, null, null, 1],
    [3600, '{HH}:{mm}', '\n{YYYY}-{MM}-{DD}', null, '\n{MM}-{DD}', null, null, null, 1],
    [60, '{HH}:{mm}', '\n{YYYY}-{MM}-{DD}', null, '\n{MM}-{DD}', null, null, null, 1],
    [1, '{HH}:{mm}:{ss}', '\n{YYYY}-{MM}-{DD}', null, '\n{MM}-{DD}', null, null, null, 1],
    [0.001, ':{ss}.{fff}', '\n{YYYY}-{MM}-{DD} {HH}:{mm}', null, '\n{MM}-{DD} {HH}:{mm}', null, '\n{HH}:{mm}', null, 1]
  ];

  function shortNumber(v) {
    var a = Math.abs(v);
    if (a >= 1e9) {
      return number.format(v / 1e9) + 'G';
    }
    if (a >= 1e6) {
      return number.format(v / 1e6) + 'M';
    }
    if (a >= 1e4) {
      return number.format(v / 1e3) + 'k';
    }
    return number.format(v);
  }

  function hasPoints(values) {
    for (var i = 0; i < values.length; i++) {
      if (values[i] != null) {
        return true;
      }
    }
    return false;
  }

  // Records what the draw pass drew: the non-null points of each shown series in the visible
  // index range, and whether uPlot drew the series (its drawSeries hook fired).
  function record(c, built) {
    return function (u) {
      var series = {};
      for (var i = 1; i < u.series.length; i++) {
        var s = u.series[i];
        var d = u.data[i];
        var idxs = s.idxs || [0, d.length - 1];
        var n = 0;
        if (s.show) {
          for (var k = idxs[0]; k <= idxs[1] && k < d.length; k++) {
            if (d[k] != null) {
              n++;
            }
          }
        }
        series[c.series[i - 1].label] = { points: n, drawn: built[i] === true };
      }
      drawn[c.id] = { series: series };
      body.dataset.charts = JSON.stringify(drawn);
    };
  }

  function draw(box, c) {
    var built = {};
    var category = c.xKind === 'category';
    var scales = { x: { time: !category } };
    if (category) {
      scales.x.range = function () {
        return [-0.5, c.x.length - 0.5];
      };
    }
    var axes = [category ? {
      splits: function () {
        return c.x;
      },
      values: function (u, vals) {
        return vals.map(function (v) {
          return c.xLabels[v] == null ? '' : c.xLabels[v];
        });
      },
      label: c.xLabel
    } : { label: c.xLabel, space: 90, values: TIME_TICKS }];
    c.axes.forEach(function (a) {
      var onAxis = c.series.filter(function (s) {
        return s.axis === a.scale;
      });
      var anyPoint = onAxis.some(function (s) {
        return hasPoints(s.values);
      });
      if (a.log && anyPoint) {
        scales[a.scale] = { distr: 3, log: 10 };
      } else {
        scales[a.scale] = {
          range: function (u, min, max) {
            var top = max != null && isFinite(max) && max > 0 ? max * 1.08 : 1;
            return [0, top];
          }
        };
      }
      axes.push({
        scale: a.scale,
        side: a.side === 'right' ? 1 : 3,
        label: a.label,
        size: 64,
        grid: { show: a.side !== 'right' },
        values: function (u, vals) {
          return vals.map(function (v) {
            return v == null ? '' : shortNumber(v);
          });
        }
      });
    });
    var dense = c.x.length > 60;
    var series = [{
      label: c.xLabel,
      value: category ? function (u, v) {
        return v == null ? '' : c.xLabels[v];
      } : '{YYYY}-{MM}-{DD} {HH}:{mm}:{ss}'
    }];
    c.series.forEach(function (s) {
      var cfg = {
        label: s.label,
        scale: s.axis,
        stroke: s.color,
        width: 2,
        spanGaps: false,
        value: function (u, v) {
          return v == null ? '–' : number.format(v);
        }
      };
      if (s.style === 'dashed') {
        cfg.dash = [6, 4];
      }
      if (s.style === 'band') {
        // a reference (expected, target) drawn wide and pale, so a line on top leaves it visible
        cfg.width = 9;
        cfg.alpha = 0.35;
      }
      if (s.style === 'points') {
        cfg.paths = function () {
          return null;
        };
        cfg.points = { show: true, space: 0, size: 9, width: 2, stroke: s.color, fill: s.color };
      } else {
        cfg.points = { show: !dense && s.style !== 'band', size: 6, fill: s.color };
      }
      series.push(cfg);
    });
    var opts = {
      width: Math.max(360, box.clientWidth),
      height: 300,
      scales: scales,
      axes: axes,
      series: series,
      legend: { live: true },
      cursor: { drag: { x: true, y: false } },
      tzDate: function (ts) {
        return uPlot.tzDate(new Date(ts * 1e3), zone);
      },
      hooks: {
        // uPlot fires drawSeries after it stroked a series' path and points
        drawSeries: [function (u, si) {
          built[si] = true;
        }],
        draw: [record(c, built)]
      }
    };
    var columns = [c.x].concat(c.series.map(function (s) {
      return s.values;
    }));
    return new uPlot(opts, columns, box);
  }

  // ---------------------------------------------------------------- the page

  document.title = data.title;
  var header = el('header', 'report');
  header.appendChild(el('h1', null, data.title));
  header.appendChild(el('div', 'subtitle', data.subtitle));
  body.appendChild(header);
  var nav = el('nav', 'report');
  var main = el('main', 'report');
  data.sections.forEach(function (s) {
    var a = el('a', null, s.title);
    a.href = '#' + s.id;
    nav.appendChild(a);
    var section = el('section', 'report-section');
    section.id = s.id;
    section.appendChild(el('h2', null, s.title));
    s.blocks.forEach(function (b) {
      section.appendChild(block(b));
    });
    main.appendChild(section);
  });
  body.appendChild(nav);
  body.appendChild(main);

  body.dataset.chartsExpected = String(charts.length);
  var plots = [];
  charts.forEach(function (c) {
    try {
      plots.push({ box: c.box, plot: draw(c.box, c.spec) });
    } catch (e) {
      console.error('chart ' + c.spec.id + ' could not be drawn: ' + e);
      c.box.appendChild(el('div', 'notice bad', 'This chart could not be drawn: ' + e));
    }
  });
  window.addEventListener('resize', function () {
    plots.forEach(function (p) {
      p.plot.setSize({ width: Math.max(360, p.box.clientWidth), height: 300 });
    });
  });
  if (charts.length === 0) {
    body.dataset.charts = '{}';
  }
  // the sections did not exist when the browser looked for report.html#section: look again
  if (location.hash.length > 1) {
    var target = document.getElementById(decodeURIComponent(location.hash.slice(1)));
    if (target) {
      target.scrollIntoView();
    }
  }
  body.dataset.rendered = 'true';
})();
