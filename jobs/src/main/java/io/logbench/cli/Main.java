package io.logbench.cli;

/** Command-line entry point. */
public final class Main {
  public static void main(String[] args) {
    System.out.println("logbench");
  }
}
