package dev.knotless.runner.secrets;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * The file holding the runner's keys ({@code --secrets-key}, {@code secrets-key.json} beside the
 * state file by default): {@code {"keys": [{"key": did:key, "private": base64 scalar, "createdAt":
 * …}, …]}}, newest first, readable by its owner alone (0600). Written atomically: a new file beside
 * it, renamed over it. Error messages name the file and never quote its content. Not thread-safe
 * against another process editing the file meanwhile.
 */
public final class RunnerKeyFile {

  private static final ObjectMapper JSON = new ObjectMapper();

  private RunnerKeyFile() {}

  /**
   * The keys in the file, made (one new key) when it does not exist yet.
   *
   * @throws IOException when it exists and cannot be read or is not such a file
   */
  public static RunnerKeys loadOrCreate(Path file, Instant now) throws IOException {
    try {
      return read(file);
    } catch (NoSuchFileException e) {
      RunnerKeys keys = new RunnerKeys(List.of(RunnerKeys.Key.generate(now)));
      write(file, keys, false);
      return keys;
    }
  }

  /**
   * Reads the file.
   *
   * @throws NoSuchFileException when there is none
   * @throws IOException when it cannot be read or is not a key file, naming the file
   */
  public static RunnerKeys read(Path file) throws IOException {
    byte[] bytes = Files.readAllBytes(file);
    String where = "secrets key file " + file;
    JsonNode root;
    try {
      root = JSON.readTree(bytes);
    } catch (IOException e) {
      throw new IOException(where + " is not JSON");
    }
    if (root == null || !root.path("keys").isArray() || root.path("keys").isEmpty()) {
      throw new IOException(where + " holds no \"keys\" list");
    }
    List<RunnerKeys.Key> keys = new ArrayList<>();
    int i = 0;
    for (JsonNode k : root.path("keys")) {
      try {
        keys.add(
            RunnerKeys.Key.of(
                k.path("key").asText(""),
                Base64.getDecoder().decode(k.path("private").asText("")),
                Instant.parse(k.path("createdAt").asText(""))));
      } catch (IllegalArgumentException | DateTimeParseException e) {
        throw new IOException(where + ": key " + i + " cannot be used: " + safe(e));
      }
      i++;
    }
    return new RunnerKeys(keys);
  }

  /** Puts a new key first, keeping the others, and returns the keys now in the file. */
  public static RunnerKeys rotate(Path file, Instant now) throws IOException {
    RunnerKeys keys = read(file).rotated(now);
    write(file, keys, true);
    return keys;
  }

  /** Keeps the newest key alone, and returns it. */
  public static RunnerKeys retire(Path file) throws IOException {
    RunnerKeys keys = read(file).retired();
    write(file, keys, true);
    return keys;
  }

  private static String safe(Exception e) {
    // Base64's and the key's own messages name no key material; a date's quotes the text.
    return e instanceof DateTimeParseException ? "createdAt is not a date" : e.getMessage();
  }

  private static void write(Path file, RunnerKeys keys, boolean replace) throws IOException {
    ObjectNode root = JSON.createObjectNode();
    ArrayNode list = root.putArray("keys");
    for (RunnerKeys.Key k : keys.keys()) {
      list.addObject()
          .put("key", k.didKey())
          .put("private", Base64.getEncoder().encodeToString(k.privateKey()))
          .put("createdAt", k.createdAt().toString());
    }
    byte[] content = JSON.writerWithDefaultPrettyPrinter().writeValueAsBytes(root);
    Path dir = file.toAbsolutePath().getParent();
    Files.createDirectories(dir);
    Path tmp =
        Files.createTempFile(
            dir,
            "." + file.getFileName() + ".",
            ".tmp",
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    try {
      try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
        ch.write(java.nio.ByteBuffer.wrap(content));
        ch.force(true);
      }
      if (replace) {
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } else {
        // A first key is never written over one another start made meanwhile.
        try {
          Files.createLink(file, tmp);
        } catch (FileAlreadyExistsException e) {
          throw new IOException("secrets key file " + file + " appeared while it was being made");
        }
      }
    } catch (AtomicMoveNotSupportedException e) {
      throw new IOException("cannot replace " + file + " atomically on this file system", e);
    } finally {
      Files.deleteIfExists(tmp);
    }
  }
}
