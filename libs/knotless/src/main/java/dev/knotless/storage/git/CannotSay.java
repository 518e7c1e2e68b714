package dev.knotless.storage.git;

/**
 * A repository's file says something the readers in this JVM do not follow (a format they do not
 * read, a length or offset out of bounds, an object too big): git is asked instead. Carries no
 * stack trace; it is an answer, not a fault.
 */
final class CannotSay extends Exception {
  CannotSay(String why) {
    super(why, null, false, false);
  }
}
