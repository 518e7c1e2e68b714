package dev.knotless.atproto;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ServiceAddressesTest {

  @Test
  void everyLocalRangeIsRefusedAndPublicAddressesPass() throws Exception {
    for (String local :
        new String[] {
          "127.0.0.1",
          "127.8.9.10",
          "10.0.0.1",
          "172.16.0.1",
          "172.31.255.255",
          "192.168.1.1",
          "169.254.169.254",
          "0.0.0.0",
          "100.100.100.200",
          "224.0.0.1",
          "::1",
          "::",
          "fe80::1",
          "fc00::1",
          "fd00:ec2::254",
          "::ffff:10.0.0.1",
          "64:ff9b::a9fe:a9fe"
        }) {
      assertNotNull(ServiceAddresses.forbidden(InetAddress.getByName(local)), local);
    }
    for (String public_ : new String[] {"93.184.215.14", "172.32.0.1", "2606:4700::1111"}) {
      assertNull(ServiceAddresses.forbidden(InetAddress.getByName(public_)), public_);
    }
  }

  @Test
  void plainHttpIsRefusedOutsideLoopbackEvenWithTheAllowance() {
    ServiceAddresses loopback = ServiceAddresses.allowingLoopback();
    assertDoesNotThrow(() -> loopback.check(URI.create("http://127.0.0.1:2583"), "the PDS"));
    var e =
        assertThrows(
            ServiceAddresses.Refused.class,
            () -> loopback.check(URI.create("http://93.184.215.14"), "the PDS"));
    assertTrue(e.getMessage().contains("plain http"), e.getMessage());
    assertThrows(
        ServiceAddresses.Refused.class,
        () -> loopback.check(URI.create("https://10.1.2.3"), "the PDS"));
    assertThrows(
        ServiceAddresses.Refused.class,
        () -> loopback.check(URI.create("file:///etc/passwd"), "the PDS"));
  }

  @Test
  void theAllowanceComesOnlyFromItsVariableOrProperty() {
    assertTrue(
        ServiceAddresses.fromEnvironment(Map.of("KNOTLESS_ALLOW_LOCAL_SERVICES", "true"))
            .allowsLoopback());
    var e =
        assertThrows(
            ServiceAddresses.Refused.class,
            () -> ServiceAddresses.strict().check(URI.create("https://localhost:2583"), "the PDS"));
    assertTrue(e.getMessage().contains("KNOTLESS_ALLOW_LOCAL_SERVICES=true"), e.getMessage());
  }

  @Test
  void aRouteChangesWhereANameLeadsButNotWhatIsAllowed() throws Exception {
    InetSocketAddress local = new InetSocketAddress(InetAddress.getLoopbackAddress(), 8443);
    Map<String, InetSocketAddress> routes = Map.of("Alice.Example.test", local);
    ServiceAddresses loopback = ServiceAddresses.allowingLoopback().routing(routes);

    assertEquals(local, loopback.pin("alice.example.test", 443), "any case, the route's port");
    assertDoesNotThrow(
        () ->
            loopback.check(URI.create("https://alice.example.test/.well-known/atproto-did"), "x"));
    ServiceAddresses.Refused http =
        assertThrows(
            ServiceAddresses.Refused.class,
            () -> loopback.check(URI.create("http://alice.example.test/"), "the handle's server"));
    assertTrue(http.getMessage().contains("plain http to a routed name"), http.getMessage());

    ServiceAddresses strict = ServiceAddresses.strict().routing(routes);
    assertThrows(
        ServiceAddresses.Refused.class,
        () -> strict.check(URI.create("https://alice.example.test/"), "the handle's server"));
    assertThrows(ServiceAddresses.Refused.class, () -> strict.pin("alice.example.test", 443));
    assertThrows(
        IllegalArgumentException.class,
        () ->
            ServiceAddresses.strict()
                .routing(Map.of("a.test", InetSocketAddress.createUnresolved("b.test", 1))));
  }
}
