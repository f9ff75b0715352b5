//go:build unix

package transport

import (
	"net"
	"os"
	"syscall"
	"time"

	"github.com/weida-go/weida/core/errs"
)

// listenBacklog asks for a deep accept queue (the kernel caps it at
// net.core.somaxconn): every stream is a connection, and syscall.SOMAXCONN
// is only 128.
const listenBacklog = 4096

// listenUnixSocket binds path with bind hygiene: a stale socket file (no
// server answers on it) is unlinked first; a live socket, or a file that is
// not a socket, is refused rather than replaced. The socket is made mode
// 0600 between bind and listen, before anyone can connect.
func listenUnixSocket(path string) (*net.UnixListener, error) {
	if fi, err := os.Lstat(path); err == nil {
		if fi.Mode()&os.ModeSocket == 0 {
			return nil, errs.New(errs.KindAddressInUse, "cannot bind %s: the file exists and is not a socket (not replaced)", path)
		}
		if c, err := net.DialTimeout("unix", path, time.Second); err == nil {
			_ = c.Close()
			return nil, errs.New(errs.KindAddressInUse, "cannot bind %s: a server is listening on it", path)
		}
		if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
			return nil, errs.Wrap(errs.KindIO, err, "cannot remove the stale socket "+path)
		}
	}
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		return nil, errs.Wrap(errs.KindIO, err, "cannot create a unix socket")
	}
	syscall.CloseOnExec(fd)
	f := os.NewFile(uintptr(fd), path)
	defer f.Close()
	if err := syscall.Bind(fd, &syscall.SockaddrUnix{Name: path}); err != nil {
		if err == syscall.EADDRINUSE {
			return nil, errs.Wrap(errs.KindAddressInUse, err, "cannot bind "+path)
		}
		return nil, errs.Wrap(errs.KindIO, err, "cannot bind "+path)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		_ = os.Remove(path)
		return nil, errs.Wrap(errs.KindIO, err, "cannot restrict "+path+" to mode 0600")
	}
	if err := syscall.Listen(fd, listenBacklog); err != nil {
		_ = os.Remove(path)
		return nil, errs.Wrap(errs.KindIO, err, "cannot listen on "+path)
	}
	ln, err := net.FileListener(f)
	if err != nil {
		_ = os.Remove(path)
		return nil, errs.Wrap(errs.KindIO, err, "cannot listen on "+path)
	}
	return ln.(*net.UnixListener), nil
}
