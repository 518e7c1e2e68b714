package dev.knotless.runner.secrets;

import dev.knotless.atproto.identity.P256DidKey;
import dev.knotless.atproto.seal.Hpke;
import dev.knotless.atproto.seal.SealBinding;
import dev.knotless.atproto.seal.SealException;
import dev.knotless.atproto.seal.SecretSeal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The runner's P-256 keys, newest first: it publishes the newest and opens what was sealed to any
 * of them, so a key can be replaced while values sealed to the old one are set again. Immutable;
 * {@link #toString()} shows only the public halves.
 */
public final class RunnerKeys {

  /**
   * One key.
   *
   * @param didKey its public half as a did:key, which names it in a sealed value
   * @param privateKey its 32-byte scalar; never logged
   * @param createdAt when it was made
   */
  public record Key(String didKey, byte[] privateKey, Instant createdAt) {
    public Key {
      privateKey = privateKey.clone();
    }

    /** A new key made now. */
    public static Key generate(Instant now) {
      byte[] sk = Hpke.generatePrivateKey();
      return new Key(P256DidKey.encode(Hpke.publicKey(sk)), sk, now);
    }

    /**
     * A key read back: the scalar and the did:key written beside it must agree.
     *
     * @throws IllegalArgumentException when they do not
     */
    public static Key of(String didKey, byte[] privateKey, Instant createdAt) {
      if (privateKey.length != 32
          || !P256DidKey.encode(Hpke.publicKey(privateKey)).equals(didKey)) {
        throw new IllegalArgumentException("its private key is not the one " + didKey + " names");
      }
      return new Key(didKey, privateKey, createdAt);
    }

    @Override
    public String toString() {
      return "Key[" + didKey + ", " + createdAt + "]";
    }
  }

  private final List<Key> keys;

  /** The keys, newest first; at least one. */
  public RunnerKeys(List<Key> keys) {
    if (keys.isEmpty()) {
      throw new IllegalArgumentException("a runner holds at least one key");
    }
    this.keys = List.copyOf(keys);
  }

  /** Every key, newest first. */
  public List<Key> keys() {
    return keys;
  }

  /** The key the runner publishes. */
  public Key newest() {
    return keys.get(0);
  }

  /** The key with this did:key, if the runner holds it. */
  public Optional<Key> find(String didKey) {
    return keys.stream().filter(k -> k.didKey().equals(didKey)).findFirst();
  }

  /** These keys with a new one first. */
  public RunnerKeys rotated(Instant now) {
    List<Key> out = new ArrayList<>();
    out.add(Key.generate(now));
    out.addAll(keys);
    return new RunnerKeys(out);
  }

  /** The newest key alone, once every value sealed to the older ones is set again. */
  public RunnerKeys retired() {
    return new RunnerKeys(List.of(newest()));
  }

  /**
   * Opens a value sealed to one of these keys for {@code binding}.
   *
   * @throws SealException when it names a key the runner does not hold, or does not open for the
   *     binding (carried to another repository, name, runner or refs, or damaged); never a value
   */
  public String open(SealBinding binding, SecretSeal.Sealed sealed) throws SealException {
    Key k =
        find(sealed.recipient())
            .orElseThrow(
                () ->
                    new SealException(
                        "was sealed to "
                            + sealed.recipient()
                            + ", a key this runner does not hold"));
    return SecretSeal.open(k.privateKey(), binding, sealed);
  }

  @Override
  public String toString() {
    return "RunnerKeys" + keys;
  }
}
