package io.logbench.report;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A run file as a report shows it: its YAML with every secret masked ({@link SecretMask}), the
 * masked keys, and the few settings the report needs. {@code ${NAME}} references are kept as
 * written (they name where a value comes from) and are not resolved, so nothing from the
 * environment reaches the report. Comments are not kept: the text is the parsed tree written
 * back.
 *
 * @param path where the run file is
 * @param maskedYaml the run file with secrets masked
 * @param maskedKeys paths of the values that were masked
 * @param tree the masked tree, for settings such as {@code zone}
 */
public record RunFile(Path path, String maskedYaml, List<String> maskedKeys, JsonNode tree) {

  private static final YAMLMapper YAML = YAMLMapper.builder()
      .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
      .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES)
      .enable(YAMLGenerator.Feature.INDENT_ARRAYS_WITH_INDICATOR)
      .build();
  private static final Pattern VARIABLE = Pattern.compile("\\$\\{[^}\\n]*}");
  private static final String PLACEHOLDER = "logbench-variable-%d-";

  public RunFile {
    maskedKeys = List.copyOf(maskedKeys);
  }

  /** Reads and masks the run file at {@code path}. */
  public static RunFile read(Path path) throws IOException {
    return of(path, Files.readString(path, StandardCharsets.UTF_8));
  }

  /**
   * Masks a run file's text.
   *
   * @throws IOException when the text is not YAML (its content is then not shown at all, since
   *     an unparsed file cannot be masked)
   */
  public static RunFile of(Path path, String text) throws IOException {
    // ${...} in a flow mapping ({url: ${X}}) is not YAML until substituted: stand-ins keep it
    // parseable without reading the environment, and the references are put back afterwards
    List<String> variables = new ArrayList<>();
    Matcher m = VARIABLE.matcher(text);
    StringBuilder parseable = new StringBuilder();
    while (m.find()) {
      m.appendReplacement(parseable, Matcher.quoteReplacement(String.format(PLACEHOLDER, variables.size())));
      variables.add(m.group());
    }
    m.appendTail(parseable);
    JsonNode tree;
    try {
      tree = YAML.readTree(parseable.toString());
    } catch (JsonProcessingException e) {
      // the parser's message quotes the offending line, which may hold a secret: position only
      JsonLocation at = e.getLocation();
      throw new IOException(path + " is not YAML" + (at == null ? "" : " (line " + at.getLineNr() + ", column "
          + at.getColumnNr() + ")") + ", so it cannot be masked and is not shown.");
    }
    if (tree == null || tree.isMissingNode()) {
      tree = YAML.createObjectNode();
    }
    List<String> masked = SecretMask.mask(tree);
    String yaml = YAML.writeValueAsString(tree);
    // the trailing '-' keeps placeholder 1 from matching the start of placeholder 10
    for (int i = 0; i < variables.size(); i++) {
      yaml = yaml.replace(String.format(PLACEHOLDER, i), variables.get(i));
    }
    // a URL default inside ${NAME:-...} is only restored now: mask its password here
    return new RunFile(path, SecretMask.maskUrls(yaml), masked, tree);
  }

  /** The {@code zone} key of the run file, when it is written out (not a reference). */
  public String zone() {
    JsonNode z = tree.path("zone");
    return z.isTextual() && !z.asText().contains("logbench-variable-") ? z.asText() : null;
  }
}
