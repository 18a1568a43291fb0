package io.logbench.sink.logfile;

import io.logbench.config.ConfigException;
import io.logbench.config.ConfigNode;
import io.logbench.dataset.LineBatch;
import io.logbench.sink.BackendSpec;
import io.logbench.sink.BackendType;
import io.logbench.sink.BatchSender;
import io.logbench.sink.CommonSettings;
import io.logbench.sink.RunContext;
import io.logbench.sink.SendResult;
import io.logbench.sink.logfile.internal.LogFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * The {@code file} write: a log file as an app writes it, for an agent to tail (Fluent Bit's
 * {@code tail}, Vector's {@code file}, Promtail, an OpenTelemetry Collector's {@code filelog}).
 * Each batch is appended with one write, one line per line (newline-ended), rotated as {@link
 * Rotation} says ({@code rotate: {size: 10MB, every: 1h, mode: rename|copytruncate, keep: 5}});
 * every subtask in a JVM appends to the same file. A batch is acknowledged once the operating
 * system took it: what the agent makes of it is for the count blocks behind the write to say.
 * Not the {@code files} backend (the seed's day files, counted in place).
 *
 * @param name the write's name
 * @param path the log file
 * @param rotation when and how it rotates ({@link Rotation#none} for never)
 */
public record LogFileBackend(String name, String path, Rotation rotation) implements BackendSpec {

  private static final long serialVersionUID = 1L;

  public static final String KIND = "file";

  public static final BackendType TYPE = BackendType.of(KIND, List.of("path", "rotate"), LogFileBackend::parse);

  public LogFileBackend {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(path, "path");
    Objects.requireNonNull(rotation, "rotation");
  }

  static LogFileBackend parse(ConfigNode block, CommonSettings common) {
    String path = block.string("path", null);
    if (path == null || path.isBlank()) {
      throw ConfigException.missing(block.path() + ".path", "the log file to write, such as /var/log/app/app.log");
    }
    if (path.contains("://")) {
      throw block.invalid("path", path, "a local file path (an agent tails a local file), not a URI");
    }
    Rotation rotation = block.has("rotate") ? Rotation.parse(block.mapping("rotate")) : Rotation.none();
    return new LogFileBackend(common.name(), path, rotation);
  }

  @Override
  public String kind() {
    return KIND;
  }

  @Override
  public BatchSender open(RunContext run) {
    LogFiles file;
    try {
      file = LogFiles.open(Path.of(path), rotation);
    } catch (IOException e) {
      throw new UncheckedIOException("Write " + name + " cannot open its log file " + path + ": " + e.getMessage(), e);
    }
    return new BatchSender() {
      @Override
      public CompletableFuture<SendResult> send(LineBatch batch) {
        try {
          file.append(batch);
          return CompletableFuture.completedFuture(SendResult.accepted(batch.count(), 0));
        } catch (IOException e) {
          // a full disk or a removed directory: retryable, the delivery mode decides how often
          return CompletableFuture.completedFuture(SendResult.retryable(batch.count(), 0,
              "io: appending to " + path + " failed: " + e.getMessage()));
        }
      }

      @Override
      public void close() {
        try {
          file.close();
        } catch (IOException e) {
          throw new UncheckedIOException("Write " + name + " could not close " + path + ": " + e.getMessage(), e);
        }
      }
    };
  }
}
