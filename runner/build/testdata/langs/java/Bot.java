public class Bot {
    public static void main(String[] args) {
        System.out.println(String.join(" ", args));
    }
}
