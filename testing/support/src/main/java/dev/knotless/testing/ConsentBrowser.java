package dev.knotless.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.openqa.selenium.By;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * A real headless browser (Debian's chromium, through chromium-driver and Selenium) that does what
 * a person does on the reference PDS's own OAuth pages: signs in with the account's password and
 * accepts, or refuses, the request. {@code testing/browser/chromium.sh} installs the packages when
 * missing. Chromium runs with {@code --headless=new}, and with {@code --no-sandbox} because its
 * sandbox refuses to start as root. Not thread-safe; close it to end the browser.
 */
public final class ConsentBrowser implements AutoCloseable {
  private static final Duration WAIT = Duration.ofSeconds(60);

  private final WebDriver driver;

  private ConsentBrowser(WebDriver driver) {
    this.driver = driver;
  }

  /** Installs chromium if needed and starts it. */
  public static ConsentBrowser start() {
    Path script = PdsLauncher.repoRoot().resolve("testing/browser/chromium.sh");
    String driverPath;
    try {
      Process p =
          new ProcessBuilder(script.toString())
              .redirectError(ProcessBuilder.Redirect.INHERIT)
              .redirectInput(ProcessBuilder.Redirect.from(PdsLauncher.nullFile()))
              .start();
      driverPath = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
      if (p.waitFor() != 0 || driverPath.isEmpty()) {
        throw new IllegalStateException(script + " could not install chromium and chromium-driver");
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
    ChromeOptions options = new ChromeOptions();
    options.setBinary("/usr/bin/chromium");
    options.addArguments(
        "--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1200,1000");
    ChromeDriverService service =
        new ChromeDriverService.Builder()
            .usingDriverExecutable(Path.of(driverPath).toFile())
            .usingAnyFreePort()
            .build();
    return new ConsentBrowser(new ChromeDriver(service, options));
  }

  /**
   * Opens {@code authorizeUrl}, signs in with {@code password} and accepts the request; returns
   * once the browser has been sent to an address starting with {@code redirectPrefix}.
   */
  public void consent(URI authorizeUrl, String password, String redirectPrefix) {
    signIn(authorizeUrl, password);
    click(List.of("Authorize", "Accept", "Allow"));
    wait("no redirect after consent").until(d -> d.getCurrentUrl().startsWith(redirectPrefix));
  }

  /** Opens {@code authorizeUrl}, signs in and refuses the request. */
  public void refuse(URI authorizeUrl, String password, String redirectPrefix) {
    signIn(authorizeUrl, password);
    click(List.of("Deny access", "Deny", "Decline", "Reject", "Cancel"));
    wait("no redirect after refusing").until(d -> d.getCurrentUrl().startsWith(redirectPrefix));
  }

  /** Opens {@code url} and returns the text it shows once it has some. */
  public String open(URI url) {
    driver.get(url.toString());
    new WebDriverWait(driver, WAIT).until(d -> !text().isBlank());
    return text();
  }

  /** The text the page shows. */
  public String text() {
    try {
      return driver.findElement(By.tagName("body")).getText();
    } catch (RuntimeException e) {
      return "";
    }
  }

  private void signIn(URI authorizeUrl, String password) {
    // Each login starts as a person's first: no device session left from an earlier one.
    driver.get(authorizeUrl.resolve("/.well-known/oauth-authorization-server").toString());
    driver.manage().deleteAllCookies();
    driver.get(authorizeUrl.toString());
    wait("no password field")
        .until(
            d -> {
              WebElement field = first(d.findElements(By.cssSelector("input[type=password]")));
              if (field == null) {
                return false;
              }
              field.sendKeys(password);
              return true;
            });
    wait("no way to send the password")
        .until(
            d -> {
              WebElement submit = first(d.findElements(By.cssSelector("button[type=submit]")));
              if (submit == null || !submit.isEnabled()) {
                return false;
              }
              submit.click();
              return true;
            });
  }

  private void click(List<String> labels) {
    wait("no button named any of " + labels)
        .until(
            d -> {
              for (WebElement b : d.findElements(By.cssSelector("button"))) {
                if (b.isDisplayed() && b.isEnabled() && labels.contains(b.getText().strip())) {
                  b.click();
                  return true;
                }
              }
              return false;
            });
  }

  private WebDriverWait wait(String what) {
    WebDriverWait w = new WebDriverWait(driver, WAIT);
    w.withMessage(
        () ->
            what
                + " at "
                + driver.getCurrentUrl()
                + "; the page says: "
                + text()
                + "; its source: "
                + abbreviated(driver.getPageSource()));
    w.ignoring(StaleElementReferenceException.class);
    return w;
  }

  private static String abbreviated(String s) {
    return s == null || s.length() < 1500 ? s : s.substring(0, 1500) + "…";
  }

  private static WebElement first(List<WebElement> found) {
    for (WebElement e : found) {
      if (e.isDisplayed()) {
        return e;
      }
    }
    return null;
  }

  @Override
  public void close() {
    driver.quit();
  }

  /**
   * Output a command writes while it waits for a login, watched for the authorization page's
   * address it prints, as a person reads it off their terminal. Thread-safe.
   */
  public static final class AddressWatch extends java.io.OutputStream {
    private final java.io.ByteArrayOutputStream text = new java.io.ByteArrayOutputStream();
    private final java.util.concurrent.CompletableFuture<URI> address =
        new java.util.concurrent.CompletableFuture<>();

    @Override
    public synchronized void write(int b) {
      text.write(b);
      if (b == '\n') {
        for (String word : text.toString(StandardCharsets.UTF_8).split("\\s+")) {
          if (word.contains("/oauth/authorize?")) {
            address.complete(URI.create(word));
          }
        }
      }
    }

    /** The address, once printed. */
    public URI await(Duration wait) throws Exception {
      return address.get(wait.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
    }

    /** Everything written so far. */
    public synchronized String text() {
      return text.toString(StandardCharsets.UTF_8);
    }
  }
}
