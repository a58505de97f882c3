/// PEM private keys for the signing tests, made once with OpenSSL 3.0 (commands in each comment) and
/// embedded, so the tests need no tool and always see the same keys. Throwaway keys: never use them elsewhere.
public enum PEMFixtures {
    /// RSA-2048, PKCS#8 (`openssl genpkey -algorithm RSA`).
    public static let rsa2048PKCS8 = """
        -----BEGIN PRIVATE KEY-----
        MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC9s/bhH9bl13S7
        Lx+XSsdayNBj8gmRS2XB100MZups13WXkcDQ4RcPo21sxopzQmno/5RN/bGNXLMI
        XDntMBHFHlleAvJ1fcPkZ8wf+trKxhGETpeyMvdppv4e307l3xI+8RTGuYTc4DjD
        3WZ9Vl/+OCS/Ck1ZLCED9j5azQJGaxFsMV5raKmwonMS+Lu5Z8tCD5zL7tbEnbuz
        j/AXk6RdoWsRffnHJbRrnls+ST/6ZHZ6/VXLf9r+8e1m4jnQKDky43kJh3PEnpB7
        gktheB71LZLE6rwUS6ffVQHcxob5WkzVideVL5cizGUB6rDAtCzjYXRFZyKmFbtP
        QfX671aLAgMBAAECggEARYbVV2o3dVKzlj0tq2H9UbEi61aUmhtTpqk1tHNtvMl0
        8EG7tPKiZJllrAXSTW8MaRhu7uypq+FLPqeqlVtWT/QRFesnmNcouiguwJPMp5/T
        YLX7VBTo5+CL5525iXdp9QafsjvhTaCiPWsCOrKzCPXjxd7NPX72dMDF1rqneE34
        0bWJwILHH+JMdAlDVkZM+c2ZAWc2HNti1CX7gSgpNjAAqNqaUz3lTmUCghMBxhlC
        6JVnE46+krY7Q/kpCVUVTx+byowCOTNJmdekgHne6x0EFM0kEaAcPBI+g0y0Pb6L
        eIchYtegh4P5CRBPAhCrk6FQA4k4OV+R74PVMUuYDQKBgQDlO5I7AAi5k78XswVM
        V1p1Tlu1AoOVLgvd+DQGAsULiXxX/laD5+QtK+Ac2WBvmdHAAcKV1HlRi0SuJxqv
        Asi0ArR67YzWhS74/OLUR8TOTa8/DYLBTqvvie8XXGLKCQoDw6HBBeKgM1NOxiix
        mndo5pB84OknnAL/B8ty2SiAXQKBgQDT2rxQqCV6Mj4EA0xuSOtGgeVRZv1uO9wI
        geX+GHSjtPD0Ah1RQ3RySXRdC7Ol64FS/PAVX5EGkm643DJ5UAHNixC1c7ZlETTp
        MTNXZvePNM8FpKVNQxlFUjNwVWoJV1jLJnArpD+yXZonHCiRje67QWV6lWTV6qEB
        gz2npnXkBwKBgQDKzbpgwnX1oRY2JGbylHHuSIXwDapWSCetmNKF4ttripZczyLB
        jl4b7K5ZN6QO+DpOsf/ySMmQcDMyFFySK1dfkukTvKiWfbwCAtG3V0tx7d62XQCq
        fyy0PwctVsn7zqVykRjBSbCnZOE2VzBXeL5eK2X3ZZBBP9CSytWe5Srk7QKBgE0v
        Qy7LpCPaDDggD4ear4VXq/m1YR35VxgOY4Ho3Q4LzUHJR28k+VbuJiQEMGaB3/Mh
        TkMrN0ZCsW5OY2FJYe7F/MdvKgO2eiV/lGoCjK0zGz2+F6+Hg7x6z1zc8a4HkcUp
        8vIjfEV6zr/zBWDKajD1CYjYxw0c154ad6sN/aOfAoGAVi4YSF82zOI2dt+aWcmB
        q/M5dRR26QfskKPc16M6YyKsOWRIaxza5d7DpEpmz91lNU7LhxpElRJ0/vxNfdNP
        xNM1PLCGcQvB3epg2/8SW8TeYy06xyWp1ljP25M54tuU2pEZWvl+r7633bOcpYi3
        dWaWtal7K8QSzEyKdVSjjeY=
        -----END PRIVATE KEY-----
        """
    /// The same RSA-2048 key as PKCS#1 (`openssl pkey -traditional`).
    public static let rsa2048PKCS1 = """
        -----BEGIN RSA PRIVATE KEY-----
        MIIEowIBAAKCAQEAvbP24R/W5dd0uy8fl0rHWsjQY/IJkUtlwddNDGbqbNd1l5HA
        0OEXD6NtbMaKc0Jp6P+UTf2xjVyzCFw57TARxR5ZXgLydX3D5GfMH/raysYRhE6X
        sjL3aab+Ht9O5d8SPvEUxrmE3OA4w91mfVZf/jgkvwpNWSwhA/Y+Ws0CRmsRbDFe
        a2ipsKJzEvi7uWfLQg+cy+7WxJ27s4/wF5OkXaFrEX35xyW0a55bPkk/+mR2ev1V
        y3/a/vHtZuI50Cg5MuN5CYdzxJ6Qe4JLYXge9S2SxOq8FEun31UB3MaG+VpM1YnX
        lS+XIsxlAeqwwLQs42F0RWciphW7T0H1+u9WiwIDAQABAoIBAEWG1VdqN3VSs5Y9
        Lath/VGxIutWlJobU6apNbRzbbzJdPBBu7TyomSZZawF0k1vDGkYbu7sqavhSz6n
        qpVbVk/0ERXrJ5jXKLooLsCTzKef02C1+1QU6Ofgi+eduYl3afUGn7I74U2goj1r
        Ajqyswj148XezT1+9nTAxda6p3hN+NG1icCCxx/iTHQJQ1ZGTPnNmQFnNhzbYtQl
        +4EoKTYwAKjamlM95U5lAoITAcYZQuiVZxOOvpK2O0P5KQlVFU8fm8qMAjkzSZnX
        pIB53usdBBTNJBGgHDwSPoNMtD2+i3iHIWLXoIeD+QkQTwIQq5OhUAOJODlfke+D
        1TFLmA0CgYEA5TuSOwAIuZO/F7MFTFdadU5btQKDlS4L3fg0BgLFC4l8V/5Wg+fk
        LSvgHNlgb5nRwAHCldR5UYtEricarwLItAK0eu2M1oUu+Pzi1EfEzk2vPw2CwU6r
        74nvF1xiygkKA8OhwQXioDNTTsYosZp3aOaQfODpJ5wC/wfLctkogF0CgYEA09q8
        UKglejI+BANMbkjrRoHlUWb9bjvcCIHl/hh0o7Tw9AIdUUN0ckl0XQuzpeuBUvzw
        FV+RBpJuuNwyeVABzYsQtXO2ZRE06TEzV2b3jzTPBaSlTUMZRVIzcFVqCVdYyyZw
        K6Q/sl2aJxwokY3uu0FlepVk1eqhAYM9p6Z15AcCgYEAys26YMJ19aEWNiRm8pRx
        7kiF8A2qVkgnrZjSheLba4qWXM8iwY5eG+yuWTekDvg6TrH/8kjJkHAzMhRckitX
        X5LpE7yoln28AgLRt1dLce3etl0Aqn8stD8HLVbJ+86lcpEYwUmwp2ThNlcwV3i+
        Xitl92WQQT/QksrVnuUq5O0CgYBNL0Muy6Qj2gw4IA+Hmq+FV6v5tWEd+VcYDmOB
        6N0OC81ByUdvJPlW7iYkBDBmgd/zIU5DKzdGQrFuTmNhSWHuxfzHbyoDtnolf5Rq
        AoytMxs9vhevh4O8es9c3PGuB5HFKfLyI3xFes6/8wVgymow9QmI2McNHNeeGner
        Df2jnwKBgFYuGEhfNsziNnbfmlnJgavzOXUUdukH7JCj3NejOmMirDlkSGsc2uXe
        w6RKZs/dZTVOy4caRJUSdP78TX3TT8TTNTywhnELwd3qYNv/ElvE3mMtOsclqdZY
        z9uTOeLblNqRGVr5fq++t92znKWIt3VmlrWpeyvEEsxMinVUo43m
        -----END RSA PRIVATE KEY-----
        """
    /// The same key, `openssl pkey -aes256` ("ENCRYPTED PRIVATE KEY").
    public static let rsa2048EncryptedPKCS8 = """
        -----BEGIN ENCRYPTED PRIVATE KEY-----
        MIIFLTBXBgkqhkiG9w0BBQ0wSjApBgkqhkiG9w0BBQwwHAQIKHOXJN5cQUACAggA
        MAwGCCqGSIb3DQIJBQAwHQYJYIZIAWUDBAEqBBCGQicidAZKKLMLS6AlJswcBIIE
        0A8sMp098LEzGDgabXQIqUHirHh9kP0dEVaSyZAtOUsVdM31ENUjpzYcXmTdSIgQ
        0Z0Nx1SJXjg54pf3xW8+RF6ehpU+K4i52xjOwwETPCkXcAKLHr+FKZCewT3QChH7
        is4R6lk1IyKoB+MLue7A0mB1O9F7bJMxzCTHn02CoIUZI+yZvyGxeQRcILlaYi4c
        EZ4AieQdScZxtl6XqseR3TAt0YmqTbpDRIyst5c0tqNb1o9eTytvVAfA9eO1F4ez
        CEMQdBX0X1NvVjDO+Wm/qn36TeXy0a7M067NiOodCjhEaGpQfAPHiy8Wz4RIGVjx
        7c24orBZVG2UCz0PdVJ60329bj6O47UjE6z8/NsgiTupJuWNYJEuXcT8nqKC/Wa8
        8JVgoDdITKDnAcfUD8XweAY1xzwbmgjM5vspT5Ur+3K6bET4qXTG3jHCoauPB5u1
        OYkhOKMGX4VtdzoL73DcKv2QXrVI4QYPKu4nGwu54kxKKbZtzjHBH7N6elcYfyJT
        JcGbGjZ3vSQX+tg8s8PtjQolT2iEJg+6y0L4XRKSEaAfcAt9TyBWakXFCFkTpVf6
        RB6JWkbpAxB11qdYTIIWfgMvDTD1scwf74Dbg87Q5WOlpz0Zx6mDbxGTg8P1h2sb
        C16h5YaJ6xt9xDDt1mf9LVmoAwnKaKdWqyA1QOqVHzWPxpq5gS/Hhg6Sw+b28Khl
        5P6VSF9ZGgEVv3esHR32rx/oh2DJGni0LthGqCRg7n1aHCUaQMlMKFtlo86O1lLO
        Zlep51uqRD8jwN8mnBQXsc5D5RTlAxF/rIWgaIgA9zHtUVn1h79RBtswZuPZc9l8
        Ctwo7LzPNEMZz3HPctfWYq43tTo6VleHbTzC7DhQCl2htP5i9GwytzAicKcc46xc
        5/2DcwA1w17cYQVKKCIJRWIcfDvwWbF8gCUxhg1zOM43+2/0pw33By2gm1adSi4l
        WDyGfmyjJPHf7XOv4qS5gpdMu3RVV9lkqPHxeD+i5PSyO8pEWI24NdErMiHSp1zX
        IaEnob9c3QMTf0LyqGesFigsd2A7nkWS0KCj1dQTOa+9Xjq6TWR1N9J3pQNNbC/S
        UXO11KCpTAYq0Qin1abLHJzbV+nSk69YvqsyJ5PLYCP0aO2ORdVHJ/1CtDzwtQyv
        Ak8SAZktGpKsZ73AVLQMtEVeI/mQ2PVjYn9Yd3fbxRhiy5xejUBmXg43tLrNsZET
        /qihfm5VITzk+I0UWlB5SHM3oKSdYBdC7lMIlqvA+SvG4ibQAHObjoWdCupaq2qu
        1C2uwOhzBuAP67uXW1HeWRJdxsQJn0sYc4unrsN8xV2nqJzs3pp7iJN57Y2AzPxW
        n0Ju/NLlV2fj7JxAD1exMiuku/yvIiOUMmK1nmynYHcKwg885hjRTMXevlndesFP
        jVfTzRnV9LEaiF/E9DZi+cI+l0UZNIT/dq55gC/ruDSKtigx/EnSQ0CfW18nWGW+
        fNyXh6cq8N4EKQ2BXrkQRRiPZDfr+1hV7/AuBqYuNmuzA42vyLZUJlfGTvrrd9wQ
        CxCzx0zidyIxF0baeOHHdm8UhqtCDgPeszALn4ow3V9RebCPvSU3YDi+P8l8S7Y9
        F28bSpoD/ZXpXGG37AApxUnjtBpTQ/E5iRi/RmCPMy6+
        -----END ENCRYPTED PRIVATE KEY-----
        """
    /// The same key, `openssl pkey -traditional -aes256` (Proc-Type: 4,ENCRYPTED).
    public static let rsa2048EncryptedPKCS1 = """
        -----BEGIN RSA PRIVATE KEY-----
        Proc-Type: 4,ENCRYPTED
        DEK-Info: AES-256-CBC,C2F140FB7206DAD44E06568B4AD32874

        WNq0ssx6J4dFOH1e+qzMLnCSnBQJxFyse2DBYeOCp1UB0PipXiS7yh9M5yfLr5UA
        N5xrXofbvA8EPq4gViHOAqc9rAtCw8l2nZgB+3pTxuL7HJYQ1fxQ4u0x+PEVQeF+
        OQF2KGn4xsdIMze5mmfL9NMwYcxxO8wGREOiIhSxWoiLupjPHej/VFkSVhTyJ/lJ
        t4TmCBsBUV3icFE3X4As5BtzaX8m+ofFcCH5oT8jvbElbr+Tjox8kHNudDNH08xC
        NZUkT1MDmBnYvbwgCPF198YFxt/D9BYGZDwQAEN/WRzT9ojY7oMohaCXL/d5KbdV
        G1CQPHZnmj981s9+ORdVWHRilyswKiP+VAhGNiMBLdrnUPr4P2ktPkMx18hkmESX
        xUy10H3ARO7s9gBPerx3b64FfqZUtV+nfv94V5YzO34aCvTUAO2yo9MDiR182H3r
        SAsX81akBgV7frvktBHv78d1zgiK7pcRSvOvXL5SUlhooGS0S4V4IM1zdoVcYuXI
        Yzq5PCTFh+3YcilYTh0LUa+mQUhHlH458X6kIQ7f1zMVOn4G901CnNQ6CTMlTo8i
        1Omh4m1bNBpYPargQ7tHC0ACthGgR/zze9oWa5eCw0OuNeg23vz/edxTYfxk3MEw
        NTjgwRWbK6T4hV5elh+OhPH5gw+bFtURjhb04ofp8os8IkAIiVmXQp3fRIwxx9FZ
        VoW75XdyvX1l6wMWQbD2r99dKtsVIjg6smxvOYBcC/GdEhY2HHYEWfG+6+bD9TVF
        AEHQr6kohujmNDZprPRRAWr1hNoPbmX4f6J5cTH2fTRLGaUOGxVLbYpYzqiu0gen
        wTav95icdvY0VlE38TCw7oj0zXiR1qB4kqhP9EcHpuRcS7W0Oco5avdV3bW7vTth
        /yrP7+pSQUMYf5Ke4iamOaofzQnU8JroXRDuL9x5GYesQCmeh6ZbRkwbAXAwyIf8
        bktDG0AvnFTc/UNpcx4f0nfiJeGU3wJKHQEXojqyEDA3x9syZUruZ1HAqIhFwSJF
        imSjiP43p1Q5epw9y1lp+mHcXwJe1/c+UKIDq8QoOzqN7kzVDwZoDPwSiM8ylG+o
        OdisdB2qCC5H/iuc4IoPr7iL6TngeWhyrEpRRnYIai0qcAykfv6wMUsP4zdzEco4
        XG4Z2lwq+qselM86TUfKOjSygDYGnyJqJWnITcRj1T+Y6V6kd0u+NuSAEAFq9nl3
        RGVAic7sD9uY9fYzhB5DQi5xTr6/GsOaWPGKV1EPHZr9dSryozjNjv7qpLrRKGyY
        gF1Q6PEFhQOnxaY6k03EFr6uzKidnXtHGCuCqoEzMymQcBY0TjhXQowDshSvXNv1
        +FwMC0+lpO34LXmOmUhxuLcFcGAgO6fW+iXWGQH6twuJb207zU67FCxO9wrlvlIe
        YJnVrWqJ1SLLI2TO/3n+peb/NZMvMUrRkD4mABrrJAVlgxZF9bnuHGceFOlr7q+Y
        WGgzuh2kGPShOOP3Z+W7EB6ZMEMOwt91aAETCVgKhXqk8FjNil1k6MyD+wuIwZor
        R0xbOiYdGGxebJ5ojmnTxL/kuDPwJq4n7YHKfQ2JZ1C4ygpfkZ2dmENP9hKsbQiQ
        -----END RSA PRIVATE KEY-----
        """
    /// RSA-1024, PKCS#8: too short.
    public static let rsa1024PKCS8 = """
        -----BEGIN PRIVATE KEY-----
        MIICdwIBADANBgkqhkiG9w0BAQEFAASCAmEwggJdAgEAAoGBAL4zTGmeuaXve06d
        YOpaezmj+pg+JJqqxXCzLXsEpSEt4R5FK5vn8r9cUdU7dcU++7WAvUk7T1Gl3vlU
        dc7jXalsv3HGxcQBz69LdYsWHMKRUkKfZnmijbC8IeMCOaj6BFElKgylbopluCop
        uDPIedt5PYhXMFirFWwluJZ+IJlVAgMBAAECgYEApgoqXtoNv2o8/vgsrummQT+B
        eH5nfg4upqAEyCvZ7AkdSUuhMk1egOebGMb7nOHK4zwsAk4ghGqFKKwu3BlonQnp
        rSIPquMT1hCUbPSKLKtLjYdHvCEL3MKuqyinA0zFykeYzNFIGsM7R/tISHVcFuVD
        5907DMMt/GkXWjgqHdECQQDdBe0U24rzKQCLJ0HRO8gFUT4rLt5MmzRyz6rm+jJB
        uW6eZIac46/pAZAnTjEI2tVzKKJR6Lu6cYVZnHp2O6ujAkEA3EyuywXRYLPsGtem
        LM8315ZybTaba/ZTV214WLylHQT+/xszehXaD4GgQytLzV1adkqtkG0jD2nAbWkl
        pPf2pwJAW4vd1BrPJcJg6EI9X7W8Nn+dGXPTPbW3dqqPZhZRhKmSqOaIXylrrj4o
        gC9B3iIN8SHugbC9OQ9WJXTLwHccswJAPP195vdVYFBvrX7GouE7tJQSWeokXV90
        8197UhXoIIChmD8PoV0rYd+hXvc9pT2TLey+4J1Wd43vmFrj8Sg1QQJBALXxq3Vw
        wuk2i415WZYsdDb+tzWly5j0N63zhd6wCXtn42aGGELZrzWAqdNENjdmZCzMBT1F
        7f6xBOytL/mmL74=
        -----END PRIVATE KEY-----
        """
    /// The same RSA-1024 key as PKCS#1.
    public static let rsa1024PKCS1 = """
        -----BEGIN RSA PRIVATE KEY-----
        MIICXQIBAAKBgQC+M0xpnrml73tOnWDqWns5o/qYPiSaqsVwsy17BKUhLeEeRSub
        5/K/XFHVO3XFPvu1gL1JO09Rpd75VHXO412pbL9xxsXEAc+vS3WLFhzCkVJCn2Z5
        oo2wvCHjAjmo+gRRJSoMpW6KZbgqKbgzyHnbeT2IVzBYqxVsJbiWfiCZVQIDAQAB
        AoGBAKYKKl7aDb9qPP74LK7ppkE/gXh+Z34OLqagBMgr2ewJHUlLoTJNXoDnmxjG
        +5zhyuM8LAJOIIRqhSisLtwZaJ0J6a0iD6rjE9YQlGz0iiyrS42HR7whC9zCrqso
        pwNMxcpHmMzRSBrDO0f7SEh1XBblQ+fdOwzDLfxpF1o4Kh3RAkEA3QXtFNuK8ykA
        iydB0TvIBVE+Ky7eTJs0cs+q5voyQblunmSGnOOv6QGQJ04xCNrVcyiiUei7unGF
        WZx6djurowJBANxMrssF0WCz7BrXpizPN9eWcm02m2v2U1dteFi8pR0E/v8bM3oV
        2g+BoEMrS81dWnZKrZBtIw9pwG1pJaT39qcCQFuL3dQazyXCYOhCPV+1vDZ/nRlz
        0z21t3aqj2YWUYSpkqjmiF8pa64+KIAvQd4iDfEh7oGwvTkPViV0y8B3HLMCQDz9
        feb3VWBQb61+xqLhO7SUElnqJF1fdPNfe1IV6CCAoZg/D6FdK2HfoV73PaU9ky3s
        vuCdVneN75ha4/EoNUECQQC18at1cMLpNouNeVmWLHQ2/rc1pcuY9Det84XesAl7
        Z+NmhhhC2a81gKnTRDY3ZmQszAU9Re3+sQTsrS/5pi++
        -----END RSA PRIVATE KEY-----
        """
    /// An RSASSA-PSS (id-RSASSA-PSS, 1.2.840.113549.1.1.10) PKCS#8 key: an algorithm not read.
    public static let rsaPSSPKCS8 = """
        -----BEGIN PRIVATE KEY-----
        MIIEvQIBADALBgkqhkiG9w0BAQoEggSpMIIEpQIBAAKCAQEA2CkOIWs3NydsstHT
        BxMmLbDTBFAMyN7+j8QKyAbHkUCYT++1B2ABmqby4fXBFhTQiNtIsF5J/vMhLPCy
        NtycE6zklkXJI5ZyXrGpyaJZs+7PHvpcn4zicIeYdm7kDVm795KFSLD413KnHpho
        sHIZc6hfTnOAE7Wk42HH9QYntDAifw98teGCH33WWnRmDPh3aoqnMEYKW9jnnzBw
        TBvMLorSs/RRweEf5PTa/JzQ0htoCNtZ0+P+SbY+L5AetGA1YJXsXFwbwVPryhAm
        sce4d5gsTikMuFxk9vT4/W5CIHX/N4i0Y+gC0dZ2oKXB2g8qKRMrOrQZ2bOuG4Nc
        0Xy/qQIDAQABAoIBAADUJXb41YEbYFYOKmAyUVjm/uQbF3V0r2anMoBiUEUNCZhy
        24+P7WmlnrRBkDAwu7zulEiC0AdPcM7ejFxb+6gypzyxP0xo4P7ecP9yJSRks7wT
        ayP8cwjJ6Ep58dtgPvF7yRGGhimzSZM7M9mLUnAoUtc256SLs3pgr1bP43qUG9tr
        ojdyAiRXjkV7RRVKYDOah7K3SuxvhCBkWIS/Po0w3qek8YYaRg77s7WrfpG+N/04
        Ov43/A6qOPXNSJugC6UgahZvg6H01p50mBYtPT6Dlqi8SiDWIyx03E9WDT75Sd5D
        NAa9QPNSd+gv71or+ZvRXucr7vtf7vN2lGr+L+ECgYEA91PdsI4EZGI/x5MslNpe
        yJO3Zj2RhEq92fW6kJPtbmJbr+pLti6wcbg4x2ezErvtBVPei3Iofq5IYzIqQmlR
        ACZZcQcBVej7yjqVLMMsiRrq1I7PqJ4nq7p/sE+4ShQ4oHGs4lKWueLS2nWIqmsu
        /TMFbVscBtcdNs1uWWDKXZECgYEA371qt3FAHaMPEo+1SJpQ1tonxSeymTGEcl9d
        AHwNdQsuh2PsMY/Uj1iJcbTM+C1Skyr08prQXAw+GBlsk0eXd0fuUTOgf5IRv/Sk
        9plzRgeDpV0TvBv5G3cCo+zE6gMIzYbeVAlj8PnLl2y9RjGpohdxn8XHTAJrVw9j
        VeXDlJkCgYEAvxEeEVgVUouIJCCxbykn0iIzq5tiwGWRN0GbaDevU/hORp9k8BAv
        pRqhWoLlF1Lwr430PZvqZrszFtbZSMbdmZUGwceco4bChZ8uQQ9iZ2TRB3ZwPB46
        HXONU2Kyxx/KA0DuQ0V0RZRSOgxUkPsOqPJyfeHFzA8A9aZMWmXoz9ECgYEAmXQb
        vmdxVyJgExX3ey1D5qhHgKRijUl2Es+vRMbQoAckSX3SIIgKfKp30kH0Fv9W1FMx
        HzfpUkifSf4eBsGidBAktxLWsMhpXiOYBP5oHo7GzuMQxwLUju7II9AfmnSsU/J9
        iFvMbRmWdmwBQSSMuPylVLTcpRg/sL2AHwjwZHkCgYEApdPREjU6ZDSW654RHSrf
        324Sv18F5+uKJjQm+9pBhJBHkWFua+tniA91qtyy4zrniirepEAXmtXl6rXilEtc
        nDnp6c9DPXpNW3C+IGHkyVVKgiJsyJ3bfC++xhQAc6JebuqYp/W7ZbAsOkEeoLka
        Wsx6Uxdd3Wy6cAACLRaFuvQ=
        -----END PRIVATE KEY-----
        """
    /// P-256, PKCS#8.
    public static let p256PKCS8 = """
        -----BEGIN PRIVATE KEY-----
        MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgctgxCbdJ7CmKs1gt
        Pp+cpaS95eKK+zxX0xwZOyhevB+hRANCAASOALr0o//mxBaJLYIv9bYpFnB+A+BI
        Pu7R29KcRRe56F1WdiAWK1DFSF6VqfBZdM+AS82cnLb5xi/ZCMCww/7D
        -----END PRIVATE KEY-----
        """
    /// The same P-256 key as SEC1.
    public static let p256SEC1 = """
        -----BEGIN EC PRIVATE KEY-----
        MHcCAQEEIHLYMQm3SewpirNYLT6fnKWkveXiivs8V9McGTsoXrwfoAoGCCqGSM49
        AwEHoUQDQgAEjgC69KP/5sQWiS2CL/W2KRZwfgPgSD7u0dvSnEUXuehdVnYgFitQ
        xUhelanwWXTPgEvNnJy2+cYv2QjAsMP+ww==
        -----END EC PRIVATE KEY-----
        """
    /// The same P-256 key as SEC1 without the optional public key (`openssl ec -no_public`).
    public static let p256SEC1NoPublicKey = """
        -----BEGIN EC PRIVATE KEY-----
        MDECAQEEIHLYMQm3SewpirNYLT6fnKWkveXiivs8V9McGTsoXrwfoAoGCCqGSM49
        AwEH
        -----END EC PRIVATE KEY-----
        """
    /// P-384, PKCS#8.
    public static let p384PKCS8 = """
        -----BEGIN PRIVATE KEY-----
        MIG2AgEAMBAGByqGSM49AgEGBSuBBAAiBIGeMIGbAgEBBDD3LhQQvLH/BJdUYtti
        FeH3y+vk4R84HZSnuNxXswJCY2zMOjL83mt/7/OpBFz6xDChZANiAASW8UbdYRYn
        pDLQ106HCtol9BGDnEmmESBrIm5S9vDJFCDZAbS1USA2RmYscOIHIRPQfBUlnlDz
        MYujIZ/cTge0rXQVBoZ3QkOq0/HTkmopUy1Nz/TbaVONH0Hl2WLgHUI=
        -----END PRIVATE KEY-----
        """
    /// The same P-384 key as SEC1.
    public static let p384SEC1 = """
        -----BEGIN EC PRIVATE KEY-----
        MIGkAgEBBDD3LhQQvLH/BJdUYttiFeH3y+vk4R84HZSnuNxXswJCY2zMOjL83mt/
        7/OpBFz6xDCgBwYFK4EEACKhZANiAASW8UbdYRYnpDLQ106HCtol9BGDnEmmESBr
        Im5S9vDJFCDZAbS1USA2RmYscOIHIRPQfBUlnlDzMYujIZ/cTge0rXQVBoZ3QkOq
        0/HTkmopUy1Nz/TbaVONH0Hl2WLgHUI=
        -----END EC PRIVATE KEY-----
        """
    /// P-521, SEC1: a curve not accepted.
    public static let p521SEC1 = """
        -----BEGIN EC PRIVATE KEY-----
        MIHcAgEBBEIA8TH48rNDjzm+tyxHsXQHh0VNauJ3WgQsW0oEnq2abBqko9W4QAb3
        tqiXc5JoEhZZ+KOxSJRnNbomgdokKSClXuGgBwYFK4EEACOhgYkDgYYABAFmfyii
        +Z+XEmE0PRoIbdYJyNZ7U9qPx3CEHlGqkgfm9I5+xyVoLh/Zziz/VNUmCuORQeBi
        ya5UD1UdBDFlFEFC7gCiCqaw5L42y1rGFb+gAj7ttzPjdKc8TaIiGMrlmNvZUCj+
        plKa6po+zoX20ADDuUJEwZGMnU3PirLjQBgYFCHeww==
        -----END EC PRIVATE KEY-----
        """
    /// P-521, PKCS#8.
    public static let p521PKCS8 = """
        -----BEGIN PRIVATE KEY-----
        MIHuAgEAMBAGByqGSM49AgEGBSuBBAAjBIHWMIHTAgEBBEIA8TH48rNDjzm+tyxH
        sXQHh0VNauJ3WgQsW0oEnq2abBqko9W4QAb3tqiXc5JoEhZZ+KOxSJRnNbomgdok
        KSClXuGhgYkDgYYABAFmfyii+Z+XEmE0PRoIbdYJyNZ7U9qPx3CEHlGqkgfm9I5+
        xyVoLh/Zziz/VNUmCuORQeBiya5UD1UdBDFlFEFC7gCiCqaw5L42y1rGFb+gAj7t
        tzPjdKc8TaIiGMrlmNvZUCj+plKa6po+zoX20ADDuUJEwZGMnU3PirLjQBgYFCHe
        ww==
        -----END PRIVATE KEY-----
        """
    /// secp256k1, SEC1: a curve not accepted.
    public static let secp256k1SEC1 = """
        -----BEGIN EC PRIVATE KEY-----
        MHQCAQEEIIuCg/oOKduzHzHnp9PoTMOhb3V5PJIbxwByauXJEpRDoAcGBSuBBAAK
        oUQDQgAEKTtJscv2/2FBRJd800+D9WnzCRRC/rylA2zO0DofHQL0auVisYI+cV1G
        44M3gLBipQka7XPJCf9vdHC/eE3IlQ==
        -----END EC PRIVATE KEY-----
        """
    /// secp256k1, PKCS#8.
    public static let secp256k1PKCS8 = """
        -----BEGIN PRIVATE KEY-----
        MIGEAgEAMBAGByqGSM49AgEGBSuBBAAKBG0wawIBAQQgi4KD+g4p27MfMeen0+hM
        w6FvdXk8khvHAHJq5ckSlEOhRANCAAQpO0mxy/b/YUFEl3zTT4P1afMJFEL+vKUD
        bM7QOh8dAvRq5WKxgj5xXUbjgzeAsGKlCRrtc8kJ/290cL94TciV
        -----END PRIVATE KEY-----
        """
    /// Ed25519, PKCS#8 (OID 1.3.101.112): an algorithm not read.
    public static let ed25519PKCS8 = """
        -----BEGIN PRIVATE KEY-----
        MC4CAQAwBQYDK2VwBCIEIK4PxXJbtaPLks2uWl0zGFbty9LdIw6FOPoDQXN3KJnW
        -----END PRIVATE KEY-----
        """
    /// The P-256 key's public half ("PUBLIC KEY"): not a private key.
    public static let p256PublicKey = """
        -----BEGIN PUBLIC KEY-----
        MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEjgC69KP/5sQWiS2CL/W2KRZwfgPg
        SD7u0dvSnEUXuehdVnYgFitQxUhelanwWXTPgEvNnJy2+cYv2QjAsMP+ww==
        -----END PUBLIC KEY-----
        """
    /// The RSA key of RFC 7515 Appendix A.2, as PKCS#1 (made from its JWK with pyca/cryptography).
    public static let rfc7515AppendixA2 = """
        -----BEGIN RSA PRIVATE KEY-----
        MIIEowIBAAKCAQEAofgWCuLjybRlzo0tZWJjNiuSfb4p4fAkd/wWJcyQoTbji9k0
        l8W26mPddxHmfHQp+Vaw+4qPCJrcS2mJPMEzP1Pt0Bm4d4QlL+yRT+SFd2lZS+pC
        gNMsD1W/YpRPEwOWvG6b32690r2jZ47soMZo9wGzjb/7OMg0LOL+bSf63kpaSHSX
        ndS5z5rexMdbBYUsLA9e+KXBdQOS+UTo7WTBEMa2R2CapHg665xsmtdVMTBQY4uD
        Zlxvb3qCo5ZwKh9kG4LT6/I5IhlJH7aGhyxXFvUK+DWNmoudF8NAco9/h9iaGNj8
        q2ethFkMLs91kzk2PAcDTW9gb54h4FRWyuXpoQIDAQABAoIBABKucaRpzQorw35S
        bEUAVx8dYXUdZOlJcHtiWQ+dC6V8ljxAHj/PLyzTveyI5QO/xkObCyjIL303l2cf
        UhPu2MFaJdjVzqACXuOrLot/eSFvxjvqVidTtAZExqFRJ9mylUVAoLvhowVWmC1O
        n95fZCXxTUtxNEG1Xcc7m0rtzJKs45J+N/V9DP1edYH6USyPSWGp6wuA+KgHRnKK
        Vf9GRx80JQY7nVNkL17eHoTWEwga+lwi0FEoW9Y7lDtWXYmKBWhUE+U8PGxlJf8f
        40493HDw1WRQ/aSLoS4QTp3rn7gYgeHEvfJdkkf0UMhlknlo53M09EFPdadQ4TlU
        bjqKc50CgYEA4BzEEOtIpmVdVEZNCqS7baC4crd0pqnRH/5IB3jw3bcxGn6QLvnE
        tfdUdiYrqBdss1l58BQ3KhooKeQTa9AB0Hw/Py5PJdTJNPY8cQn7ouZ2KKDcmnPG
        BY5t7yLc1QlQ5xHdwW1VhvKn+nXqhJTBgIPgtldC+KDV5z+y2XDwGUcCgYEAuQPE
        fgmVtjL0Uyyx88GZFF1fOunH3+7cepKmtH4pxhtCoHqpWmT8YAmZxaewHgHAjLYs
        p1ZSe7zFYHj7C6ul7TjeLQeZD/YwD66t62wDmpe/HlB+TnBA+njbglfIsRLtXlnD
        zQkv5dTltRJ11BKBBypeeF6689rjcJIDEz9RWdcCgYAHAp9XcCSrn8wVkMVkKdb7
        DOX4IKjzdahm+ctDAJN4O/y7OW5FKebvUjdAIt2GuoTZ71iTG+7F0F+lP88jtjP4
        U4qe7VHoewl4MKOfXZKTe+YCS1XbNvfgwJ3Ltyl1OH9hWvu2yza7q+d5PCsDzqtm
        27kxuvULVeya+TEdAB1ijQKBgQCH/3r6YrVH/uCWGy6bzV1nGNOdjKc9tmkfOJmN
        54dxdixdpozCQ6U4OxZrsj3FcOhHBsqAHvX2uuYjagqvo3cOj1TRqNocX40omfCC
        Mx3bD1yPPf/6TI2XECva/ggqEY2mYzmIiA5LVVmc5nrybr+lssFKneeyxN2Wq93S
        0iJMdQKBgCGHewxzoa1r8ZMD0LETNrToK423K377UCYqXfg5XMclbrjPbEC3YI1Z
        NqMtuhdBJqUnBi6tjKMF+34Xf0CUN8ncuXGO2CAYvO8PdyCixHX52ybaDjy1FtCE
        6yUXjoKNXKvUm7MWGsAYH6f4IegOetN5NvmUMFStCSkh7ixZLkN1
        -----END RSA PRIVATE KEY-----
        """
    /// The P-256 SEC1 key with the public point of another key put in (made with Python from two `openssl genpkey` keys).
    public static let p256SEC1MismatchedPublicKey = """
        -----BEGIN EC PRIVATE KEY-----
        MHcCAQEEIHLYMQm3SewpirNYLT6fnKWkveXiivs8V9McGTsoXrwfoAoGCCqGSM49
        AwEHoUQDQgAEWDJezpnhMCupauKYo6y/ffq5Zh0tN7Fl+b0ieKNLVjbbZzksHEO3
        87zRAB5ibfJAvGWLvZQJKfk9I3DhzuqZjQ==
        -----END EC PRIVATE KEY-----
        """
    /// The RSA-2048 PKCS#1 key with one bit of d flipped (made with Python): its parts no longer fit.
    public static let rsa2048PKCS1WrongExponent = """
        -----BEGIN RSA PRIVATE KEY-----
        MIIEowIBAAKCAQEAvbP24R/W5dd0uy8fl0rHWsjQY/IJkUtlwddNDGbqbNd1l5HA
        0OEXD6NtbMaKc0Jp6P+UTf2xjVyzCFw57TARxR5ZXgLydX3D5GfMH/raysYRhE6X
        sjL3aab+Ht9O5d8SPvEUxrmE3OA4w91mfVZf/jgkvwpNWSwhA/Y+Ws0CRmsRbDFe
        a2ipsKJzEvi7uWfLQg+cy+7WxJ27s4/wF5OkXaFrEX35xyW0a55bPkk/+mR2ev1V
        y3/a/vHtZuI50Cg5MuN5CYdzxJ6Qe4JLYXge9S2SxOq8FEun31UB3MaG+VpM1YnX
        lS+XIsxlAeqwwLQs42F0RWciphW7T0H1+u9WiwIDAQABAoIBAEWG1VdqN3VSs5Y9
        Lath/VGxIutWlJobU6apNbRzbbzJdPBBu7TyomSZZawF0k1vDGkYbu7sqavhSz6n
        qpVbVk/0ERXrJ5jXKLooLsCTzKef02C1+1QU6Ofgi+eduYl3afUGn7I74U2goj1r
        Ajqyswj148XezT1+9nTAxda6p3hN+NG1icCCxx/iTHQJQ1ZGTPnNmQFnNhzbYtQl
        +4EoKTYwAKjamlM95U5lAoITAcYZQuiVZxOOvpK2O0P5KQlVFU8fm8qMAjkzSZnX
        pIB53usdBBTNJBGgHDwSPoNMtD2+i3iHIWLXoIeD+QkQTwIQq5OhUAOJODlfke+D
        1TFLmA8CgYEA5TuSOwAIuZO/F7MFTFdadU5btQKDlS4L3fg0BgLFC4l8V/5Wg+fk
        LSvgHNlgb5nRwAHCldR5UYtEricarwLItAK0eu2M1oUu+Pzi1EfEzk2vPw2CwU6r
        74nvF1xiygkKA8OhwQXioDNTTsYosZp3aOaQfODpJ5wC/wfLctkogF0CgYEA09q8
        UKglejI+BANMbkjrRoHlUWb9bjvcCIHl/hh0o7Tw9AIdUUN0ckl0XQuzpeuBUvzw
        FV+RBpJuuNwyeVABzYsQtXO2ZRE06TEzV2b3jzTPBaSlTUMZRVIzcFVqCVdYyyZw
        K6Q/sl2aJxwokY3uu0FlepVk1eqhAYM9p6Z15AcCgYEAys26YMJ19aEWNiRm8pRx
        7kiF8A2qVkgnrZjSheLba4qWXM8iwY5eG+yuWTekDvg6TrH/8kjJkHAzMhRckitX
        X5LpE7yoln28AgLRt1dLce3etl0Aqn8stD8HLVbJ+86lcpEYwUmwp2ThNlcwV3i+
        Xitl92WQQT/QksrVnuUq5O0CgYBNL0Muy6Qj2gw4IA+Hmq+FV6v5tWEd+VcYDmOB
        6N0OC81ByUdvJPlW7iYkBDBmgd/zIU5DKzdGQrFuTmNhSWHuxfzHbyoDtnolf5Rq
        AoytMxs9vhevh4O8es9c3PGuB5HFKfLyI3xFes6/8wVgymow9QmI2McNHNeeGner
        Df2jnwKBgFYuGEhfNsziNnbfmlnJgavzOXUUdukH7JCj3NejOmMirDlkSGsc2uXe
        w6RKZs/dZTVOy4caRJUSdP78TX3TT8TTNTywhnELwd3qYNv/ElvE3mMtOsclqdZY
        z9uTOeLblNqRGVr5fq++t92znKWIt3VmlrWpeyvEEsxMinVUo43m
        -----END RSA PRIVATE KEY-----
        """
}
