import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.stream.Stream;

/**
 * Writes the JRE's trust store from Debian's ca-certificates, as ca-certificates-java's hook would
 * in an installed system: {@code java Cacerts.java <dir of *.crt> <cacerts>}. One JVM for every
 * certificate, where keytool would take one each.
 */
public final class Cacerts {
  public static void main(String[] args) throws Exception {
    KeyStore ks = KeyStore.getInstance("PKCS12");
    ks.load(null, null);
    CertificateFactory cf = CertificateFactory.getInstance("X.509");
    List<Path> crts;
    try (Stream<Path> s = Files.walk(Path.of(args[0]))) {
      crts = s.filter(p -> p.toString().endsWith(".crt")).sorted().toList();
    }
    for (Path p : crts) {
      try (InputStream in = Files.newInputStream(p)) {
        X509Certificate c = (X509Certificate) cf.generateCertificate(in);
        String alias = p.getFileName().toString().replaceAll("\\.crt$", "").toLowerCase();
        ks.setCertificateEntry("debian:" + alias, c);
      }
    }
    if (crts.isEmpty()) {
      throw new IllegalStateException("no certificates under " + args[0]);
    }
    Files.createDirectories(Path.of(args[1]).getParent());
    try (OutputStream out = Files.newOutputStream(Path.of(args[1]))) {
      ks.store(out, "changeit".toCharArray());
    }
    System.err.println(crts.size() + " certificates in " + args[1]);
  }
}
