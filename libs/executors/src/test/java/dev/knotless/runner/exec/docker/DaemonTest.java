package dev.knotless.runner.exec.docker;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.github.dockerjava.api.exception.DockerClientException;
import com.github.dockerjava.api.exception.InternalServerErrorException;
import org.junit.jupiter.api.Test;

class DaemonTest {

  @Test
  void aPullErrorQuotingAUrlIsKeptWhole() {
    String said =
        "Get \\\"https://registry.invalid/v2/\\\": dial tcp: lookup registry.invalid on"
            + " 10.0.0.53:53: no such host";
    var e = new InternalServerErrorException("{\"message\":\"" + said + "\"}\n");
    assertEquals(
        "Get \"https://registry.invalid/v2/\": dial tcp: lookup registry.invalid on"
            + " 10.0.0.53:53: no such host",
        Daemon.why(e));
  }

  @Test
  void whatTheDaemonSaysStaysOnOneLine() {
    var e =
        new InternalServerErrorException(
            "{\"message\":\"first\\nfake: line\\r\\u001b[2Kgone `x`\"}");
    assertEquals("first\\nfake: line\\r\\u001b[2Kgone `x`", Daemon.why(e));
    assertEquals(
        "Could not pull image: denied\\nsecond",
        Daemon.why(new DockerClientException("Could not pull image: denied\nsecond")));
  }

  @Test
  void aBodyThatIsNotJsonIsGivenAsItIs() {
    assertEquals(
        "Status 500: bad gateway {",
        Daemon.why(new InternalServerErrorException("bad gateway {\n")));
  }
}
