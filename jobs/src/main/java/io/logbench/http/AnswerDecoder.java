package io.logbench.http;

import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Reads a connection's HTTP/1.x answers from its bytes as they arrive, each whole: its status,
 * its body and whether the connection stays open after it.
 *
 * <p>It stands in for Netty's {@code HttpResponseDecoder} and {@code HttpObjectAggregator}, which
 * made a header map, a response object, a composite buffer and a full response for every answer:
 * a quarter to a third of the I/O thread's CPU at a steady rate, for answers of a few bytes
 * (docs/benchmarks.md, twentieth round). This reads only what the transport uses.
 *
 * <ul>
 *   <li>A head ends at an empty line; lines end in CRLF or a bare LF; empty lines before an
 *       answer are skipped.
 *   <li>The status line is {@code HTTP/1.x}, a three-digit status, an optional reason.
 *   <li>Interim answers (1xx) are skipped; 204 and 304 have no body.
 *   <li>The body is framed by {@code Transfer-Encoding: chunked} (chunk extensions and trailers
 *       skipped), else by {@code Content-Length} (two different lengths are invalid), else it runs
 *       until the connection closes ({@link #closed}).
 *   <li>HTTP/1.1 keeps the connection unless {@code Connection: close}; HTTP/1.0 only with {@code
 *       Connection: keep-alive}; an answer read until the close never keeps it.
 * </ul>
 *
 * <p>Anything else is {@link Invalid}, after which the decoder is not to be used again (the
 * connection is closed). Not thread-safe: one connection's I/O thread feeds it.
 */
final class AnswerDecoder {

  /** An answer read whole. */
  @FunctionalInterface
  interface Sink {
    void answer(int status, byte[] body, boolean keepAlive);
  }

  /** Bytes that are not an HTTP/1.x answer, or one larger than allowed. */
  static final class Invalid extends IOException {
    private static final long serialVersionUID = 1L;

    Invalid(String message) {
      super(message);
    }
  }

  /** Longest head read (Netty's decoder allowed 4 KB of status line and 8 KB of headers). */
  static final int MAX_HEAD_BYTES = 16 * 1024;

  private static final byte[] EMPTY = new byte[0];

  private enum State { HEAD, LENGTH, CHUNK_SIZE, CHUNK_DATA, CHUNK_END, TRAILERS, UNTIL_CLOSE }

  private final int maxBodyBytes;
  private State state = State.HEAD;

  /**
   * The bytes of the head (or chunk line, or trailer) being read, and nothing else: bytes are
   * moved here from the connection's buffer only up to the line feed that ends it.
   */
  private byte[] pending = new byte[256];
  private int pendingEnd;
  /** Where the line being read starts in {@link #pending}. */
  private int lineStart;

  // the answer being read
  private int status;
  private boolean keepAlive;
  private byte[] body = EMPTY;
  private int bodyLength;
  /** Bytes left of the body ({@link State#LENGTH}) or of the chunk ({@link State#CHUNK_DATA}). */
  private long left;

  AnswerDecoder(int maxBodyBytes) {
    this.maxBodyBytes = maxBodyBytes;
  }

  /** Reads {@code in} (all of it, without releasing it), handing each answer it completes to {@code sink}. */
  void read(ByteBuf in, Sink sink) throws Invalid {
    while (true) {
      switch (state) {
        case HEAD -> {
          if (!head(in)) {
            return;
          }
          readHead(sink);
          clearPending();
        }
        case LENGTH, CHUNK_DATA, UNTIL_CLOSE -> {
          if (!in.isReadable()) {
            return;
          }
          int n = state == State.UNTIL_CLOSE ? in.readableBytes() : (int) Math.min(left, in.readableBytes());
          ensureBody(n);
          in.readBytes(body, bodyLength, n);
          bodyLength += n;
          left -= n;
          if (state == State.LENGTH && left == 0) {
            complete(sink);
          } else if (state == State.CHUNK_DATA && left == 0) {
            state = State.CHUNK_END;
          }
        }
        default -> {
          if (!line(in)) {
            return;
          }
          chunkLine(endOfLine(0, pendingEnd - 1), sink);
          clearPending();
        }
      }
    }
  }

  /**
   * The connection closed: an answer read until the close is whole and handed to {@code sink}
   * (true); any other answer in progress is cut short (false).
   */
  boolean closed(Sink sink) {
    if (state != State.UNTIL_CLOSE) {
      return false;
    }
    complete(sink);
    return true;
  }

  // ---- heads and lines ----

  /**
   * Moves the head's bytes from {@code in} to {@link #pending}, up to the empty line that ends
   * it; true once it is whole, false when {@code in} ran out first. Empty lines before it are dropped.
   */
  private boolean head(ByteBuf in) throws Invalid {
    while (line(in)) {
      if (endOfLine(lineStart, pendingEnd - 1) > lineStart) {
        lineStart = pendingEnd;
      } else if (lineStart == 0) {
        clearPending(); // an empty line before a status line
      } else {
        return true;
      }
    }
    return false;
  }

  /**
   * Moves bytes from {@code in} to {@link #pending} up to and including the next line feed; true
   * when the line is whole (from {@link #lineStart} to {@link #pendingEnd}).
   */
  private boolean line(ByteBuf in) throws Invalid {
    if (!in.isReadable()) {
      return false;
    }
    int lf = in.indexOf(in.readerIndex(), in.writerIndex(), (byte) '\n');
    int n = (lf < 0 ? in.writerIndex() : lf + 1) - in.readerIndex();
    if (pendingEnd + n > MAX_HEAD_BYTES) {
      throw new Invalid("a head or chunk line longer than " + MAX_HEAD_BYTES + " bytes");
    }
    if (pendingEnd + n > pending.length) {
      pending = Arrays.copyOf(pending, Math.max(pendingEnd + n, pending.length * 2));
    }
    in.readBytes(pending, pendingEnd, n);
    pendingEnd += n;
    return lf >= 0;
  }

  private void clearPending() {
    pendingEnd = 0;
    lineStart = 0;
  }

  /** A chunk's size line, the end of its data, or a trailer line, ending at {@code end} in {@link #pending}. */
  private void chunkLine(int end, Sink sink) throws Invalid {
    switch (state) {
      case CHUNK_SIZE -> {
        long size = chunkSize(0, end);
        if (size == 0) {
          state = State.TRAILERS;
        } else {
          if (bodyLength + size > maxBodyBytes) {
            throw tooLarge(bodyLength + size);
          }
          left = size;
          state = State.CHUNK_DATA;
        }
      }
      case CHUNK_END -> {
        if (end != 0) {
          throw new Invalid("a chunk longer than its size");
        }
        state = State.CHUNK_SIZE;
      }
      case TRAILERS -> {
        if (end == 0) {
          complete(sink);
        }
      }
      default -> throw new IllegalStateException(state.name());
    }
  }

  /** Reads the whole head in {@link #pending} (its lines, the empty one last) and starts its body. */
  private void readHead(Sink sink) throws Invalid {
    int to = pendingEnd;
    int lineEnd = indexOf(0, to, (byte) '\n');
    int statusEnd = endOfLine(0, lineEnd);
    // "HTTP/1.x NNN[ reason]"
    if (statusEnd < 12 || !startsWith(0, "HTTP/1.") || !digit(pending[7]) || pending[8] != ' ' || !digit(pending[9])
        || !digit(pending[10]) || !digit(pending[11]) || statusEnd > 12 && pending[12] != ' ') {
      throw new Invalid("the status line '" + text(0, Math.min(statusEnd, 80)) + "'");
    }
    boolean http10 = pending[7] == '0';
    status = (pending[9] - '0') * 100 + (pending[10] - '0') * 10 + (pending[11] - '0');
    long length = -1;
    boolean chunked = false;
    Boolean connection = null;
    for (int line = lineEnd + 1; line < to; ) {
      int lf = indexOf(line, to, (byte) '\n');
      int end = endOfLine(line, lf);
      if (end == line) {
        break;
      }
      if (pending[line] == ' ' || pending[line] == '\t') {
        line = lf + 1; // a folded line continues a header this decoder does not read
        continue;
      }
      int colon = indexOf(line, end, (byte) ':');
      if (colon <= line || colon == end) {
        throw new Invalid("the header line '" + text(line, Math.min(end, line + 80)) + "'");
      }
      int v = colon + 1;
      int ve = end;
      while (v < ve && (pending[v] == ' ' || pending[v] == '\t')) {
        v++;
      }
      while (ve > v && (pending[ve - 1] == ' ' || pending[ve - 1] == '\t')) {
        ve--;
      }
      if (nameIs(line, colon, "content-length")) {
        long l = contentLength(v, ve);
        if (length >= 0 && l != length) {
          throw new Invalid("two different Content-Length headers");
        }
        length = l;
      } else if (nameIs(line, colon, "transfer-encoding")) {
        chunked = endsWithToken(v, ve, "chunked");
      } else if (nameIs(line, colon, "connection")) {
        if (hasToken(v, ve, "close")) {
          connection = Boolean.FALSE;
        } else if (hasToken(v, ve, "keep-alive") && connection == null) {
          connection = Boolean.TRUE;
        }
      }
      line = lf + 1;
    }
    keepAlive = connection != null ? connection : !http10;
    bodyLength = 0;
    body = EMPTY;
    if (status / 100 == 1) {
      return; // an interim answer; the final one follows
    }
    if (status == 204 || status == 304) {
      complete(sink);
    } else if (chunked) {
      state = State.CHUNK_SIZE;
    } else if (length >= 0) {
      if (length > maxBodyBytes) {
        throw tooLarge(length);
      }
      if (length == 0) {
        complete(sink);
      } else {
        left = length;
        body = new byte[(int) length];
        state = State.LENGTH;
      }
    } else {
      keepAlive = false;
      state = State.UNTIL_CLOSE;
    }
  }

  private void complete(Sink sink) {
    byte[] b = bodyLength == body.length ? body : Arrays.copyOf(body, bodyLength);
    body = EMPTY;
    bodyLength = 0;
    state = State.HEAD;
    sink.answer(status, b, keepAlive);
  }

  private void ensureBody(int n) throws Invalid {
    long need = (long) bodyLength + n;
    if (need > maxBodyBytes) {
      throw tooLarge(need);
    }
    if (need > body.length) {
      body = Arrays.copyOf(body, (int) Math.min(maxBodyBytes, Math.max(need, Math.max(1024, body.length * 2L))));
    }
  }

  private Invalid tooLarge(long bytes) {
    return new Invalid("an answer of more than " + maxBodyBytes + " bytes (at least " + bytes + ")");
  }

  // ---- parsing helpers over pending ----

  /** Where the line from {@code start} to its line feed at {@code lf} ends without its line break (CRLF or LF). */
  private int endOfLine(int start, int lf) {
    return lf > start && pending[lf - 1] == '\r' ? lf - 1 : lf;
  }

  private long chunkSize(int from, int to) throws Invalid {
    int end = indexOf(from, to, (byte) ';'); // chunk extensions are skipped
    while (end > from && (pending[end - 1] == ' ' || pending[end - 1] == '\t')) {
      end--;
    }
    if (end == from || end - from > 15) {
      throw new Invalid("the chunk size '" + text(from, Math.min(to, from + 40)) + "'");
    }
    long size = 0;
    for (int i = from; i < end; i++) {
      int d = Character.digit(pending[i], 16);
      if (d < 0) {
        throw new Invalid("the chunk size '" + text(from, Math.min(to, from + 40)) + "'");
      }
      size = size * 16 + d;
    }
    return size;
  }

  private long contentLength(int from, int to) throws Invalid {
    if (to == from || to - from > 18) {
      throw new Invalid("the Content-Length '" + text(from, to) + "'");
    }
    long l = 0;
    for (int i = from; i < to; i++) {
      if (!digit(pending[i])) {
        throw new Invalid("the Content-Length '" + text(from, Math.min(to, from + 40)) + "'");
      }
      l = l * 10 + (pending[i] - '0');
    }
    return l;
  }

  private int indexOf(int from, int to, byte b) {
    for (int i = from; i < to; i++) {
      if (pending[i] == b) {
        return i;
      }
    }
    return to;
  }

  private boolean startsWith(int at, String ascii) {
    for (int i = 0; i < ascii.length(); i++) {
      if (pending[at + i] != ascii.charAt(i)) {
        return false;
      }
    }
    return true;
  }

  /** Whether the header name in {@code [from, to)} is {@code lower}, ignoring case. */
  private boolean nameIs(int from, int to, String lower) {
    if (to - from != lower.length()) {
      return false;
    }
    for (int i = 0; i < lower.length(); i++) {
      int b = pending[from + i];
      if ((b >= 'A' && b <= 'Z' ? b + ('a' - 'A') : b) != lower.charAt(i)) {
        return false;
      }
    }
    return true;
  }

  /** Whether the comma-separated value in {@code [from, to)} holds the token {@code lower}, ignoring case. */
  private boolean hasToken(int from, int to, String lower) {
    for (int t = from; t < to; ) {
      int comma = indexOf(t, to, (byte) ',');
      int s = t;
      int e = comma;
      while (s < e && (pending[s] == ' ' || pending[s] == '\t')) {
        s++;
      }
      while (e > s && (pending[e - 1] == ' ' || pending[e - 1] == '\t')) {
        e--;
      }
      if (nameIs(s, e, lower)) {
        return true;
      }
      t = comma + 1;
    }
    return false;
  }

  /** Whether the last token of the comma-separated value in {@code [from, to)} is {@code lower}. */
  private boolean endsWithToken(int from, int to, String lower) {
    int s = to;
    while (s > from && pending[s - 1] != ',') {
      s--;
    }
    while (s < to && (pending[s] == ' ' || pending[s] == '\t')) {
      s++;
    }
    return nameIs(s, to, lower);
  }

  private static boolean digit(byte b) {
    return b >= '0' && b <= '9';
  }

  private String text(int from, int to) {
    return new String(pending, from, to - from, StandardCharsets.ISO_8859_1).replace("\r", "\\r").replace("\n", "\\n");
  }
}
