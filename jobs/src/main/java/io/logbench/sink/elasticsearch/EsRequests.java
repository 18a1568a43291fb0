package io.logbench.sink.elasticsearch;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.logbench.count.internal.CountQueries;
import io.logbench.count.internal.CountQueries.Answer;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpRequest;

/**
 * The read requests the count reader and the searches both make of an index: its refresh and a
 * JSON body posted for a JSON answer, with the backend's credentials and its answers checked the
 * same way.
 */
final class EsRequests {

  private static final ObjectMapper JSON = new ObjectMapper();

  private final CountQueries http;
  private final String url;
  private final String index;
  private final String authorization;

  /** @param authorization the Authorization header's value, or null for none */
  EsRequests(CountQueries http, String url, String index, String authorization) {
    this.http = http;
    this.url = url;
    this.index = index;
    this.authorization = authorization;
  }

  /** A request to {@code path} of the backend, with its credentials. */
  HttpRequest.Builder request(String path) {
    HttpRequest.Builder b = http.request(URI.create(url + path));
    if (authorization != null) {
      b.header("Authorization", authorization);
    }
    return b;
  }

  /** Makes every stored document searchable; false when the index does not exist. */
  boolean refresh() throws IOException {
    Answer a = http.send(request("/" + index + "/_refresh").POST(HttpRequest.BodyPublishers.noBody()).build(),
        "the refresh");
    if (a.status() == 404 && a.text().contains("index_not_found_exception")) {
      return false;
    }
    if (a.status() != 200) {
      throw new IOException(
          http.backend() + " answered the refresh of " + index + " with " + a.status() + ": " + a.shortText(300));
    }
    return true;
  }

  /** Posts {@code body} (JSON) to {@code path}; the answer's JSON, or an error naming {@code what}. */
  JsonNode post(String path, byte[] body, String what) throws IOException {
    return json(http.send(request(path).header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofByteArray(body)).build(), what), what);
  }

  /** Gets {@code path}; the answer's JSON, or an error naming {@code what}. */
  JsonNode get(String path, String what) throws IOException {
    return json(http.send(request(path).GET().build(), what), what);
  }

  private JsonNode json(Answer a, String what) throws IOException {
    if (a.status() != 200) {
      throw new IOException(http.backend() + " answered " + what + " with " + a.status() + ": " + a.shortText(300));
    }
    try {
      return JSON.readTree(a.body());
    } catch (IOException e) {
      throw new IOException(http.backend() + " answered " + what + " with a body that is not JSON.", e);
    }
  }

  /**
   * Puts a {@code date_histogram} on {@code @timestamp} into {@code parent}: buckets of {@code
   * bucketMillis} aligned on {@code from} (an offset when {@code from} is not on the epoch's grid),
   * keys in epoch milliseconds.
   */
  static ObjectNode dateHistogram(ObjectNode parent, long from, long bucketMillis, int minDocCount) {
    ObjectNode histogram = parent.putObject("date_histogram");
    histogram.put("field", "@timestamp");
    histogram.put("fixed_interval", bucketMillis + "ms");
    long offset = Math.floorMod(from, bucketMillis);
    if (offset != 0) {
      histogram.put("offset", "+" + offset + "ms");
    }
    histogram.put("min_doc_count", minDocCount);
    histogram.put("format", "epoch_millis");
    return histogram;
  }
}
