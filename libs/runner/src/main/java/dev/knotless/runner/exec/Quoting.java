package dev.knotless.runner.exec;

/** Quotes names in error messages so blanks and line breaks show. */
final class Quoting {

  private Quoting() {}

  static String quote(String s) {
    return '"' + s.replace("\\", "\\\\").replace("\n", "\\n").replace("\r", "\\r") + '"';
  }
}
