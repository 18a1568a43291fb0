package io.logbench.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A headless Chromium (Debian's {@code chromium}) driven over the DevTools protocol with Java's
 * own WebSocket client: opens a page, collects console errors, uncaught exceptions and every
 * network request, evaluates JavaScript and takes screenshots. One browser per instance, bound to
 * 127.0.0.1 on a port it picks; {@link #close} ends it.
 */
public final class HeadlessChromium implements AutoCloseable {

  /** Where Debian installs it; {@code CHROMIUM} overrides. */
  public static final Path DEFAULT_BINARY = Path.of("/usr/bin/chromium");

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Pattern LISTENING = Pattern.compile("DevTools listening on (ws://\\S+)");
  private static final Duration TIMEOUT = Duration.ofSeconds(60);

  private final Process process;
  private final Path profile;
  private final WebSocket socket;
  private final AtomicInteger ids = new AtomicInteger();
  private final Map<Integer, BlockingQueue<JsonNode>> replies = new ConcurrentHashMap<>();
  private final List<String> errors = java.util.Collections.synchronizedList(new ArrayList<>());
  private final List<String> requests = java.util.Collections.synchronizedList(new ArrayList<>());
  private final BlockingQueue<String> loads = new LinkedBlockingQueue<>();
  private String session;

  /** The browser binary, or null when none is installed. */
  public static Path binary() {
    String env = System.getenv("CHROMIUM");
    Path p = env != null && !env.isBlank() ? Path.of(env) : DEFAULT_BINARY;
    return Files.isExecutable(p) ? p : null;
  }

  /** Starts the browser and attaches to a blank page of {@code width} x {@code height} CSS pixels. */
  public static HeadlessChromium start(Path binary, int width, int height) throws Exception {
    Path profile = Files.createTempDirectory("logbench-chromium");
    ProcessBuilder pb = new ProcessBuilder(binary.toString(), "--headless", "--no-sandbox", "--disable-gpu",
        "--disable-quic", "--no-first-run", "--no-default-browser-check", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--disable-extensions", "--hide-scrollbars",
        "--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0", "--user-data-dir=" + profile,
        "--window-size=" + width + "," + height, "about:blank");
    pb.redirectOutput(ProcessBuilder.Redirect.DISCARD);
    Process process = pb.start();
    try {
      return new HeadlessChromium(process, profile, width, height);
    } catch (Exception e) {
      process.destroy();
      throw e;
    }
  }

  private HeadlessChromium(Process process, Path profile, int width, int height) throws Exception {
    this.process = process;
    this.profile = profile;
    String url = awaitDevToolsUrl(process);
    socket = HttpClient.newHttpClient().newWebSocketBuilder()
        .buildAsync(URI.create(url), new Listener())
        .get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
    JsonNode target = call(null, "Target.createTarget", JSON.createObjectNode().put("url", "about:blank"));
    JsonNode attached = call(null, "Target.attachToTarget", JSON.createObjectNode()
        .put("targetId", target.path("targetId").asText()).put("flatten", true));
    session = attached.path("sessionId").asText();
    call(session, "Runtime.enable", JSON.createObjectNode());
    call(session, "Log.enable", JSON.createObjectNode());
    call(session, "Network.enable", JSON.createObjectNode());
    call(session, "Page.enable", JSON.createObjectNode());
    call(session, "Emulation.setDeviceMetricsOverride", JSON.createObjectNode().put("width", width)
        .put("height", height).put("deviceScaleFactor", 1).put("mobile", false));
  }

  /** Reads the browser's stderr until it says where its DevTools socket is. */
  private static String awaitDevToolsUrl(Process process) throws IOException {
    BlockingQueue<String> found = new LinkedBlockingQueue<>();
    Thread reader = new Thread(() -> {
      try (BufferedReader r = new BufferedReader(
          new InputStreamReader(process.getErrorStream(), StandardCharsets.UTF_8))) {
        String line;
        while ((line = r.readLine()) != null) {
          Matcher m = LISTENING.matcher(line);
          if (m.find()) {
            found.add(m.group(1));
          }
          // keep draining, so the browser never blocks on a full pipe
        }
      } catch (IOException e) {
        // the browser ended
      }
    }, "chromium-stderr");
    reader.setDaemon(true);
    reader.start();
    try {
      String url = found.poll(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
      if (url == null) {
        throw new IOException("Chromium did not print its DevTools address within " + TIMEOUT.toSeconds()
            + " s (alive: " + process.isAlive() + ").");
      }
      return url;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("Interrupted while waiting for Chromium.", e);
    }
  }

  /** Opens {@code url} and waits for its load event. */
  public void open(String url) throws Exception {
    loads.clear();
    JsonNode r = call(session, "Page.navigate", JSON.createObjectNode().put("url", url));
    if (r.hasNonNull("errorText")) {
      throw new IOException("Chromium could not open " + url + ": " + r.path("errorText").asText());
    }
    if (loads.poll(TIMEOUT.toSeconds(), TimeUnit.SECONDS) == null) {
      throw new IOException("The page " + url + " did not load within " + TIMEOUT.toSeconds() + " s.");
    }
  }

  /** The value of a JavaScript expression (JSON-able), or an error when it throws. */
  public JsonNode evaluate(String expression) throws Exception {
    return evaluate(expression, false);
  }

  private JsonNode evaluate(String expression, boolean awaitPromise) throws Exception {
    JsonNode r = call(session, "Runtime.evaluate", JSON.createObjectNode().put("expression", expression)
        .put("returnByValue", true).put("awaitPromise", awaitPromise));
    if (r.has("exceptionDetails")) {
      throw new IOException("The expression " + expression + " threw: " + r.path("exceptionDetails"));
    }
    return r.path("result").path("value");
  }

  /**
   * Polls {@code expression} until it is neither null nor undefined, or the deadline passes.
   *
   * @return its value
   */
  public JsonNode awaitValue(String expression, Duration within) throws Exception {
    long deadline = System.nanoTime() + within.toNanos();
    while (true) {
      JsonNode v = evaluate(expression);
      if (!v.isMissingNode() && !v.isNull()) {
        return v;
      }
      if (System.nanoTime() > deadline) {
        throw new IOException(expression + " stayed empty for " + within.toSeconds() + " s; errors: " + errors());
      }
      // the page draws in animation frames: ask the browser to run one before asking again
      evaluate("new Promise(r => requestAnimationFrame(() => r(true)))", true);
    }
  }

  /** A PNG of the page: the top {@code height} CSS pixels (all of it when the page is shorter). */
  public byte[] screenshot(int height) throws Exception {
    double full = evaluate("document.documentElement.scrollHeight").asDouble();
    double width = evaluate("document.documentElement.clientWidth").asDouble();
    ObjectNode clip = JSON.createObjectNode().put("x", 0).put("y", 0).put("width", width)
        .put("height", Math.min(full, height)).put("scale", 1);
    ObjectNode params = JSON.createObjectNode().put("format", "png").put("captureBeyondViewport", true);
    params.set("clip", clip);
    JsonNode r = call(session, "Page.captureScreenshot", params);
    return Base64.getDecoder().decode(r.path("data").asText());
  }

  /** Console errors, uncaught exceptions and error log entries, in order. */
  public List<String> errors() {
    synchronized (errors) {
      return List.copyOf(errors);
    }
  }

  /** The URL of every request the page made. */
  public List<String> requests() {
    synchronized (requests) {
      return List.copyOf(requests);
    }
  }

  private JsonNode call(String sessionId, String method, ObjectNode params) throws Exception {
    int id = ids.incrementAndGet();
    ObjectNode msg = JSON.createObjectNode().put("id", id).put("method", method);
    msg.set("params", params);
    if (sessionId != null) {
      msg.put("sessionId", sessionId);
    }
    BlockingQueue<JsonNode> reply = new LinkedBlockingQueue<>();
    replies.put(id, reply);
    try {
      socket.sendText(JSON.writeValueAsString(msg), true).get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
      JsonNode r = reply.poll(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
      if (r == null) {
        throw new IOException("Chromium did not answer " + method + " within " + TIMEOUT.toSeconds() + " s.");
      }
      if (r.has("error")) {
        throw new IOException("Chromium refused " + method + ": " + r.path("error"));
      }
      return r.path("result");
    } finally {
      replies.remove(id);
    }
  }

  private void onMessage(JsonNode m) {
    if (m.has("id")) {
      BlockingQueue<JsonNode> q = replies.get(m.path("id").asInt());
      if (q != null) {
        q.add(m);
      }
      return;
    }
    JsonNode p = m.path("params");
    switch (m.path("method").asText()) {
      case "Runtime.exceptionThrown" -> errors.add("exception: " + p.path("exceptionDetails").path("exception")
          .path("description").asText(p.path("exceptionDetails").path("text").asText()));
      case "Runtime.consoleAPICalled" -> {
        String type = p.path("type").asText();
        if (type.equals("error") || type.equals("assert")) {
          errors.add("console." + type + ": " + p.path("args"));
        }
      }
      case "Log.entryAdded" -> {
        if (p.path("entry").path("level").asText().equals("error")) {
          errors.add("log: " + p.path("entry").path("text").asText() + " " + p.path("entry").path("url").asText());
        }
      }
      case "Network.requestWillBeSent" -> requests.add(p.path("request").path("url").asText());
      case "Page.loadEventFired" -> loads.add("load");
      default -> {
        // other events are not needed
      }
    }
  }

  /** Puts the frames of a message together and hands each message over. */
  private final class Listener implements WebSocket.Listener {
    private final StringBuilder text = new StringBuilder();

    @Override
    public CompletionStage<?> onText(WebSocket ws, CharSequence data, boolean last) {
      text.append(data);
      if (last) {
        try {
          onMessage(JSON.readTree(text.toString()));
        } catch (IOException e) {
          errors.add("unreadable DevTools message: " + e.getMessage());
        }
        text.setLength(0);
      }
      ws.request(1);
      return null;
    }
  }

  @Override
  public void close() throws Exception {
    try {
      socket.sendText(JSON.writeValueAsString(JSON.createObjectNode().put("id", ids.incrementAndGet())
          .put("method", "Browser.close")), true).get(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      // the browser is ended below either way
    }
    // the browser's own helpers (zygote, renderer, GPU) are its descendants: end those too
    List<ProcessHandle> helpers = process.descendants().toList();
    if (!process.waitFor(10, TimeUnit.SECONDS)) {
      process.destroy();
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    }
    helpers.stream().filter(ProcessHandle::isAlive).forEach(ProcessHandle::destroy);
    try (var files = Files.walk(profile)) {
      files.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
    }
  }
}
