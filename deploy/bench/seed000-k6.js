// Seed 000's k6 load test ("Loki vs VictoriaLogs on a four-node homelab"), as the seed gives it,
// with three changes so that it runs against local servers and any one step of its ladder:
//   - the two URLs come from LOKI_URL and VL_URL (the seed's point at its cluster's services);
//   - RAMP (default 30s) and HOLD (default 2m) set each step's ramp and hold, as the seed's are,
//     and RAMP=0s starts at the first step's rate with no ramp (START_RATE);
//   - nothing else: the lines, the pool, the streams, the bodies, the executor and the thresholds
//     are the seed's, so its CPU per line is the one seed 000 measured.
// deploy/bench/vs-k6.sh runs it beside logbench's generate on the same work.
import http from 'k6/http';
import { check } from 'k6';
import { SharedArray } from 'k6/data';

const TARGET = __ENV.TARGET; // loki | vl
const BATCH = 100; // lines per request
// Real logs come from many streams; one stream would hit Loki's per-stream limit
// (3MB/s) long before the tenant one and measure the wrong thing.
const STREAMS = 20;
// Requests per second at each step; x BATCH = lines per second.
const STEPS = (__ENV.STEPS || '50,100,200,400,500,700,1000').split(',').map(Number);
const RAMP = __ENV.RAMP || '30s';
const HOLD = __ENV.HOLD || '2m';

const URLS = {
  loki: (__ENV.LOKI_URL || 'http://127.0.0.1:3100') + '/loki/api/v1/push',
  vl: (__ENV.VL_URL || 'http://127.0.0.1:9428') + '/insert/jsonline' +
    '?_stream_fields=namespace,container&_msg_field=msg',
};

export const options = {
  scenarios: {
    ingest: {
      executor: 'ramping-arrival-rate',
      startRate: RAMP === '0s' ? STEPS[0] : 0,
      timeUnit: '1s',
      preAllocatedVUs: 50,
      maxVUs: 400,
      // 30s to climb to each step, 2m holding it.
      stages: STEPS.flatMap((r) => (RAMP === '0s' ? [] : [{ target: r, duration: RAMP }]).concat([
        { target: r, duration: HOLD },
      ])),
    },
  },
  thresholds: {
    http_req_failed: [{ threshold: 'rate<0.01', abortOnFail: true, delayAbortEval: '30s' }],
    http_req_duration: [{ threshold: 'p(95)<2000', abortOnFail: true, delayAbortEval: '30s' }],
  },
};

// Built once and shared by every VU, so a request costs picking lines, not
// building them.
const LEVELS = ['info', 'info', 'info', 'debug', 'warn', 'error'];
const PATHS = ['/api/orders', '/api/users', '/healthz', '/api/checkout', '/metrics'];
const POOL = new SharedArray('lines', () =>
  Array.from({ length: 5000 }, (_, i) => ({
    level: LEVELS[i % LEVELS.length],
    msg: `request handled path=${PATHS[i % PATHS.length]} status=${i % 17 === 0 ? 500 : 200}`,
    trace_id: (Math.random().toString(16).slice(2) + Math.random().toString(16).slice(2)).slice(0, 32),
    user_id: `u${Math.floor(Math.random() * 5000)}`,
    latency_ms: Math.floor(Math.random() * 900),
  })),
);

const pick = () => POOL[Math.floor(Math.random() * POOL.length)];

function lokiBody(container) {
  const ms = Date.now();
  // A distinct nanosecond per line: Loki drops an identical (timestamp, line) pair.
  const values = Array.from({ length: BATCH }, (_, k) => [
    `${ms}${String(k).padStart(6, '0')}`,
    JSON.stringify(pick()),
  ]);
  return JSON.stringify({ streams: [{ stream: { namespace: 'loadtest', container }, values }] });
}

function vlBody(container) {
  return Array.from({ length: BATCH }, () =>
    JSON.stringify({ namespace: 'loadtest', container, ...pick() }),
  ).join('\n');
}

export default function () {
  const container = `k6-${__VU % STREAMS}`;
  const r = TARGET === 'loki'
    ? http.post(URLS.loki, lokiBody(container), { headers: { 'Content-Type': 'application/json' } })
    : http.post(URLS.vl, vlBody(container), { headers: { 'Content-Type': 'application/stream+json' } });
  check(r, { '2xx': (res) => res.status >= 200 && res.status < 300 });
}
