package io.logbench.layout;

import java.io.Serializable;

/**
 * A run of whole minutes of one layout file: where it goes ({@code offset}, {@code size} bytes),
 * which lines it holds, how many each minute has (for the newlines between minutes), whether a
 * newline precedes it, and an optional dataset resume token for its first line.
 */
public record FileChunk(
    String file,
    long offset,
    long size,
    long firstLine,
    long lines,
    int[] minuteLines,
    boolean leadingNewline,
    Serializable resumeToken)
    implements Serializable {

  /** The same chunk, carrying a resume token for its first line. */
  public FileChunk withResumeToken(Serializable token) {
    return new FileChunk(file, offset, size, firstLine, lines, minuteLines, leadingNewline, token);
  }
}
