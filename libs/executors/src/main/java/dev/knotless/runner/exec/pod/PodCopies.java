package dev.knotless.runner.exec.pod;

import dev.knotless.runner.exec.RunPaths;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.SequenceInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ScheduledFuture;

/**
 * The copies between the runner and a run's pod, each as tar through one exec's stdin or stdout (so
 * the pod never reaches a service, and the runner never a pod's address): the checkout in, the
 * outputs out, and for a write-back the pod's /work back. What comes out of a pod is its run's and
 * so hostile; {@link Tar} reads it so that nothing lands outside where it is put. Stateless.
 */
final class PodCopies {

  private PodCopies() {}

  /** A copy the pod refused; the message says why, for the check's log. */
  static final class Refused extends Exception {
    Refused(String message) {
      super(message);
    }
  }

  /** The checkout (built in {@code paths}) into pod {@code pod}'s /work. */
  static void checkoutIn(PodApi api, String pod, RunPaths paths)
      throws IOException, InterruptedException, Refused {
    treeIn(
        api,
        pod,
        paths.checkout(),
        paths.root().resolve("checkout.tar"),
        Launcher.unpackCommand(),
        "the checkout");
  }

  /**
   * The tree under {@code tree} into pod {@code pod} through {@code command}, which reads it as
   * {@link Launcher#framed} tar; packed first in {@code tar}, removed after.
   *
   * @param what what the tree is, for the message of a refusal
   */
  static void treeIn(PodApi api, String pod, Path tree, Path tar, List<String> command, String what)
      throws IOException, InterruptedException, Refused {
    try {
      Tar.write(tree, tar);
      long size = Files.size(tar);
      byte[] head = (size + "\n").getBytes(StandardCharsets.US_ASCII);
      PodCommands.Result r;
      try (InputStream body = Files.newInputStream(tar)) {
        r =
            PodCommands.run(
                api,
                pod,
                command,
                new SequenceInputStream(new ByteArrayInputStream(head), body),
                64 * 1024,
                PodCommands.COPY);
      }
      if (r.exit() != 0) {
        throw new Refused(what + " could not be unpacked in pod " + pod + ": " + r.text().strip());
      }
    } finally {
      Files.deleteIfExists(tar);
    }
  }

  /**
   * The checkout (built in {@code paths}) as the head of an exec's stdin: a byte count on one line
   * and that much tar, as {@link Launcher#UNPACK_AND_LAUNCH} reads it.
   */
  static void checkoutInto(OutputStream in, RunPaths paths) throws IOException {
    Path tar = paths.root().resolve("checkout.tar");
    try {
      Tar.write(paths.checkout(), tar);
      in.write((Files.size(tar) + "\n").getBytes(StandardCharsets.US_ASCII));
      Files.copy(tar, in);
    } finally {
      Files.deleteIfExists(tar);
    }
  }

  /**
   * Directory {@code path} of pod {@code pod} into {@code into} (made if missing), with at most
   * {@code maxBytes} of file data; {@code into} is left empty when the pod has no such directory.
   */
  static void treeOut(PodApi api, String pod, String path, Path into, long maxBytes, String what)
      throws IOException, InterruptedException {
    Files.createDirectories(into);
    int exit =
        PodCommands.stream(
            api,
            pod,
            CopyScripts.cacheOutCommand(path),
            null,
            PodCommands.COPY,
            out -> Tar.extractTree(out, into, maxBytes, what, false));
    if (exit != 0) {
      throw new IOException("packing " + what + " in the pod exited with " + exit);
    }
  }

  /**
   * Waits, within {@link PodCommands#COPY}, for an {@link Launcher#UNPACK_AND_LAUNCH} exec to say
   * the checkout is in.
   *
   * @throws IOException naming why it is not (what tar said), or that the pod did not say
   */
  static void awaitUnpacked(PodApi.Exec exec, String pod) throws IOException {
    ScheduledFuture<?> watchdog = PodCommands.closeAfter(exec, PodCommands.COPY);
    try {
      InputStream out = exec.stdout();
      ByteArrayOutputStream line = new ByteArrayOutputStream();
      for (int b; (b = out.read()) >= 0 && b != '\n' && line.size() < SAID_MAX; ) {
        line.write(b);
      }
      String said = line.toString(StandardCharsets.UTF_8);
      if (said.equals(Launcher.UNPACKED)) {
        return;
      }
      String rest = new String(out.readNBytes(SAID_MAX), StandardCharsets.UTF_8);
      String why = (said + "\n" + rest).strip();
      throw new IOException(
          "the checkout could not be unpacked in pod "
              + pod
              + ": "
              + (why.isEmpty()
                  ? "the pod said nothing within " + PodCommands.COPY.toMinutes() + " min"
                  : why));
    } finally {
      watchdog.cancel(false);
    }
  }

  /** The most of what an unpacking pod says that goes into a message. */
  private static final int SAID_MAX = 64 * 1024;

  /**
   * Whether pod {@code pod}'s checkout was unpacked whole: false when the runner that made it
   * stopped before that, in which case no step ran in it.
   */
  static boolean checkedOut(PodApi api, String pod) throws IOException, InterruptedException {
    return askYesNo(api, pod, CopyScripts.checkedCommand(), "whether its checkout is in place");
  }

  /** Whether a step was launched in pod {@code pod} (by this runner or one that stopped). */
  static boolean stepsBegun(PodApi api, String pod) throws IOException, InterruptedException {
    return askYesNo(api, pod, CopyScripts.begunCommand(), "whether its steps began");
  }

  /** Runs {@code command} in the pod, which answers yes or no to {@code question}. */
  private static boolean askYesNo(PodApi api, String pod, List<String> command, String question)
      throws IOException, InterruptedException {
    String said = PodCommands.run(api, pod, command, null, 64, PodCommands.SHORT).text().strip();
    if (!said.equals("yes") && !said.equals("no")) {
      throw new IOException("pod " + pod + " did not say " + question + ": " + said);
    }
    return said.equals("yes");
  }

  /**
   * Pod {@code pod}'s outputs directory into {@code outputs}, as {@link OutputsTar} copies it, with
   * at most {@code maxBytes} of file data.
   */
  static void outputsOut(PodApi api, String pod, Path outputs, long maxBytes)
      throws IOException, InterruptedException {
    int exit =
        PodCommands.stream(
            api,
            pod,
            CopyScripts.packOutputsCommand(),
            null,
            PodCommands.COPY,
            out -> OutputsTar.extract(out, outputs, maxBytes));
    if (exit != 0) {
      throw new IOException("packing the pod's outputs exited with " + exit);
    }
  }

  /**
   * Pod {@code pod}'s /work in place of {@code checkout}, all of it but its .git (the runner's,
   * which stays): what a write-back then reads. At most {@code maxBytes} of file data.
   */
  static void checkoutBack(PodApi api, String pod, Path checkout, long maxBytes)
      throws IOException, InterruptedException {
    try (var top = Files.list(checkout)) {
      for (Path p : top.toList()) {
        if (!p.getFileName().toString().equals(".git")) {
          deleteTree(p);
        }
      }
    }
    int exit =
        PodCommands.stream(
            api,
            pod,
            CopyScripts.packWorkCommand(),
            null,
            PodCommands.COPY,
            out -> Tar.extractTree(out, checkout, maxBytes));
    if (exit != 0) {
      throw new IOException("packing the pod's /work exited with " + exit);
    }
  }

  private static void deleteTree(Path p) throws IOException {
    if (Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
      try (var in = Files.list(p)) {
        for (Path c : in.toList()) {
          deleteTree(c);
        }
      }
    }
    Files.delete(p);
  }
}
